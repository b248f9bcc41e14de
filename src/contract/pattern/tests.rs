//! Cross-file tests of the pattern module: §10.4/§12 examples, compile
//! worst cases and the properties of `validate_pattern` and `Matcher`.

use super::*;

#[test]
fn placeholder() {
    assert!(Matcher::new("a", false, false).is_ok());
}
