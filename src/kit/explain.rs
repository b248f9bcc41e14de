//! Known, documented differences of a peer, recognised in a divergence so
//! a sweep can tell "a new bug" from "the difference we already listed".
//!
//! Only `ripgrep-walk` has such differences: it lets `rg` walk, and `rg`'s
//! globs and ignore reporting differ from the contract in ways listed (with
//! a test each) in [`crate::ripgrep::walk_peer::expected_differences`]. The
//! recognisers here are deliberately narrow: each looks at the call (and,
//! for the ignore notice, at the two answers) and names the listed case,
//! or says nothing, in which case the divergence counts.

use serde_json::Value;

use super::case::Call;
use crate::contract::glob::{brace_expansions, canonical_glob};
use crate::contract::notice::IGNORE_NOTICE;

/// The listed `ripgrep-walk` difference that explains `answer` differing
/// from `reference` for `call`, if there is one (`RipgrepWalk`'s
/// [`Search::explain`](crate::peer::Search::explain)).
pub fn explain(call: &Call, reference: &Value, answer: &Value) -> Option<&'static str> {
    let globs: Vec<&str> = match call {
        Call::Grep(g) => g.globs.iter().map(String::as_str).collect(),
        Call::Glob(g) => vec![g.pattern.as_str()],
        // Flow calls are validated before rg sees them, and rg takes no
        // part in the file flows: nothing of theirs is listed.
        _ => return None,
    };
    // Generated seam calls carry only validated globs (plans put what
    // validation refuses in flow calls), so rg's reading of an unvalidated
    // glob is no longer a difference to excuse.
    if globs.iter().any(|g| g.starts_with('!')) {
        return Some("negative_glob_prunes_directories");
    }
    if globs.iter().any(|g| has_empty_alternative(g)) {
        return Some("empty_brace_alternative");
    }
    if globs.iter().any(|g| mixed_anchoring(g)) {
        return Some("brace_alternatives_share_anchoring");
    }
    if only_ignore_sentence_differs(reference, answer) {
        return Some("ignore_notice_inferred_from_listings");
    }
    None
}

/// `{a,}`: rg's globset drops the empty alternative, the contract keeps it.
fn has_empty_alternative(glob: &str) -> bool {
    let Some(open) = glob.find('{') else {
        return false;
    };
    let Some(close) = glob[open..].find('}') else {
        return false;
    };
    glob[open + 1..open + close].split(',').any(str::is_empty)
}

/// Brace alternatives of which some hold a `/` and some do not: rg anchors
/// the whole glob, the contract decides per expansion.
fn mixed_anchoring(glob: &str) -> bool {
    let expansions = brace_expansions(&canonical_glob(glob));
    let slashed = expansions
        .iter()
        .filter(|e| e.trim_start_matches('/').contains('/'))
        .count();
    slashed > 0 && slashed < expansions.len()
}

/// The answers are equal but for the ignore sentence of the notice.
fn only_ignore_sentence_differs(reference: &Value, answer: &Value) -> bool {
    let strip = |v: &Value| {
        let mut v = v.clone();
        if let Some(obj) = v.as_object_mut() {
            let notice = obj
                .get("notice")
                .and_then(Value::as_str)
                .map(|n| n.replace(IGNORE_NOTICE, "").trim().to_string());
            match notice {
                Some(n) if n.is_empty() => {
                    obj.remove("notice");
                }
                Some(n) => {
                    obj.insert("notice".into(), Value::String(n));
                }
                None => {}
            }
        }
        v
    };
    reference != answer && strip(reference) == strip(answer)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::GlobInput;
    use serde_json::json;

    fn glob(p: &str) -> Call {
        Call::Glob(GlobInput::new(p, "/r"))
    }

    #[test]
    fn recognisers_are_narrow() {
        let a = json!({"paths":[],"total":0,"truncated":false});
        let b = json!({"paths":["x"],"total":1,"truncated":false});
        // An unvalidated glob is never excused (plans no longer send one).
        assert_eq!(explain(&glob("{a,b"), &a, &b), None);
        assert_eq!(
            explain(&glob("!cache"), &a, &b),
            Some("negative_glob_prunes_directories")
        );
        assert_eq!(
            explain(&glob("*{.ts,}"), &a, &b),
            Some("empty_brace_alternative")
        );
        assert_eq!(
            explain(&glob("{nested/a.ts,b.ts}"), &a, &b),
            Some("brace_alternatives_share_anchoring")
        );
        assert_eq!(explain(&glob("*.ts"), &a, &b), None);
        let with = json!({"paths":[],"total":0,"truncated":false,"notice": IGNORE_NOTICE});
        assert_eq!(
            explain(&glob("*.ts"), &a, &with),
            Some("ignore_notice_inferred_from_listings")
        );
    }
}
