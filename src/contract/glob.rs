//! STUB — to be replaced: caller globs (§8).
use super::StdError;

/// §8.1.
pub fn validate_glob(_glob: &str) -> Result<(), StdError> {
    todo!()
}
/// §8.2.
pub fn canonical_glob(_glob: &str) -> String {
    todo!()
}
/// §8.3 step 2.
pub fn brace_expansions(_canonical: &str) -> Vec<String> {
    todo!()
}
/// §8.3.
pub fn matches_glob(_glob: &str, _relative: &str, _basename: &str) -> bool {
    todo!()
}
/// §8.4.
pub fn included_by_globs(_globs: &[String], _relative: &str, _basename: &str) -> bool {
    todo!()
}
/// Compiled ordered include/exclude list.
#[derive(Debug)]
pub struct GlobList;
impl GlobList {
    /// Compile.
    pub fn new(_globs: &[String]) -> GlobList {
        todo!()
    }
    /// §8.4.
    pub fn includes(&self, _relative: &str, _basename: &str) -> bool {
        todo!()
    }
}
/// §16 literal directory segments.
pub fn literal_dir_segments(_expansion: &str) -> Vec<String> {
    todo!()
}
