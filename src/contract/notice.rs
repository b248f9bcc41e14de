//! The notices of search-contract §14 (truncation) and §16 (unsatisfiable
//! globs and ignore rules), with their exact templates.
//!
//! Every notice string lawsuite emits is written here, so a template appears
//! once in the code base.

use std::fs;

use super::glob::{brace_expansions, canonical_glob, literal_dir_segments};
use super::skip::{is_hidden, is_skipped};
use super::{GlobInput, GlobOutput, StdError, join_path, utf16_cmp};

/// What a truncation notice counts (§14; `lines` is the read flow's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// grep hits.
    Matches,
    /// grep files under `filesWithMatches`.
    Files,
    /// glob paths and ls entries.
    Entries,
    /// read lines.
    Lines,
}

impl Unit {
    fn as_str(self) -> &'static str {
        match self {
            Unit::Matches => "matches",
            Unit::Files => "files",
            Unit::Entries => "entries",
            Unit::Lines => "lines",
        }
    }
}

/// «`Showing {shown} of {total} {unit}; output was truncated.`»
///
/// For grep, `shown` is the *requested* limit (§14); for glob, the number of
/// paths returned (equal to the limit whenever the notice is due).
///
/// ```
/// use lawsuite::contract::notice::{truncation, Unit};
/// assert_eq!(truncation(0, 3, Unit::Matches), "Showing 0 of 3 matches; output was truncated.");
/// ```
pub fn truncation(shown: u64, total: u64, unit: Unit) -> String {
    format!(
        "Showing {shown} of {total} {}; output was truncated.",
        unit.as_str()
    )
}

/// The suffix read-ls-flows §1.5 appends to a `read` page's notice when a
/// line was clipped to 2,000 Unicode scalar values (it starts with one space).
///
/// ```
/// use lawsuite::contract::notice::{truncation, Unit, LONG_LINE_SUFFIX};
/// let notice = truncation(1, 1, Unit::Lines) + LONG_LINE_SUFFIX;
/// assert!(notice.ends_with("lines; output was truncated. Lines longer than 2000 Unicode scalar values are clipped, so such a line is not an edit anchor."));
/// ```
pub const LONG_LINE_SUFFIX: &str = " Lines longer than 2000 Unicode scalar values are clipped, so such a line is not an edit anchor.";

/// The ignore sentence of §16 step 4.
pub const IGNORE_NOTICE: &str =
    "No results; ignore files excluded paths. Retry with noIgnore: true to include them.";

/// The literal-retry sentence of §18.
pub const LITERAL_RETRY_NOTICE: &str = "The pattern found nothing as a regular expression and these results come from re-running it literally (fixedStrings: true).";

/// The notice of an empty answer (§16): unsatisfiable-glob sentences and/or
/// the ignore sentence, or `None`.
///
/// `globs` are the grep globs (for glob, `[pattern]`), `ignored` is the
/// walk's flag (§7.5). The filesystem is consulted (`stat` of the root and of
/// literal directory prefixes), exactly as the spec does.
///
/// ```
/// use lawsuite::contract::notice::empty_answer_notice;
/// let dir = tempfile::tempdir()?;
/// let root = dir.path().to_str().unwrap();
/// let notice = empty_answer_notice(root, &["missing/**/*.ts".into()], false, false, false);
/// assert_eq!(
///     notice.unwrap(),
///     format!(r#"No file under {root} can match "missing/**/*.ts": there is no missing directory there."#),
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn empty_answer_notice(
    root: &str,
    globs: &[String],
    hidden: bool,
    no_ignore: bool,
    ignored: bool,
) -> Option<String> {
    // Step 1: a missing root or a file root never gets a notice.
    match fs::metadata(root) {
        Ok(meta) if meta.is_dir() => {}
        _ => return None,
    }
    let mut sentences = Vec::new();
    let mut positives = 0;
    for glob in globs.iter().filter(|g| !g.starts_with('!')) {
        positives += 1;
        if let Some(sentence) = unsatisfiable_sentence(root, glob, hidden) {
            sentences.push(sentence);
        }
    }
    // Step 3: every positive glob unsatisfiable → those sentences alone.
    if !sentences.is_empty() && sentences.len() == positives {
        return Some(sentences.join(" "));
    }
    // Step 4.
    if !no_ignore && ignored {
        sentences.push(IGNORE_NOTICE.to_string());
    }
    (!sentences.is_empty()).then(|| sentences.join(" "))
}

/// §16 step 2 for one positive glob: its sentence, or `None` when some
/// brace expansion of it could match.
fn unsatisfiable_sentence(root: &str, glob: &str, hidden: bool) -> Option<String> {
    let canonical = canonical_glob(glob);
    let mut first_reason = None;
    for expansion in brace_expansions(&canonical) {
        let segments = literal_dir_segments(&expansion);
        if segments.is_empty() {
            return None;
        }
        let reason = if let Some(skipped) = segments.iter().find(|s| is_skipped(s)) {
            format!(
                "{skipped} is never descended into; name it as the search root to look inside it"
            )
        } else if !hidden && segments.iter().any(|s| is_hidden(s)) {
            "hidden paths are excluded unless hidden is true".to_string()
        } else {
            let dir = segments.join("/");
            if fs::metadata(join_path(root, &dir)).is_ok_and(|m| m.is_dir()) {
                return None;
            }
            format!("there is no {dir} directory there")
        };
        first_reason.get_or_insert(reason);
    }
    let reason = first_reason?;
    Some(match root_relative_suffix(root, &canonical) {
        Some(suffix) => format!(
            "No file under {root} can match \"{glob}\": glob patterns are relative to the search root, so use \"{suffix}\" instead."
        ),
        None => format!("No file under {root} can match \"{glob}\": {reason}."),
    })
}

/// The suffix of §16 step 2: a glob that repeats the root's own path.
fn root_relative_suffix<'a>(root: &str, canonical: &'a str) -> Option<&'a str> {
    let glob = canonical.trim_start_matches('/');
    let root = root.trim_matches('/');
    if root.is_empty() {
        return None;
    }
    glob.strip_prefix(root)?.strip_prefix('/')
}

/// A `glob` answer from the matching paths (§6.3, §14, §16; native-peer
/// §3 steps 2–3): sort them (UTF-16), keep the first `limit`, and add the
/// truncation notice, or for an empty answer the unsatisfiable/ignore
/// notice. `ignored` (the walk's §7.5 flag) is asked only when empty.
/// Every peer builds its glob answer here.
pub fn glob_answer(
    input: &GlobInput,
    mut paths: Vec<String>,
    ignored: impl FnOnce() -> Result<bool, StdError>,
) -> Result<GlobOutput, StdError> {
    paths.sort_by(|a, b| utf16_cmp(a, b));
    let total = paths.len() as u64;
    paths.truncate(usize::try_from(input.limit).unwrap_or(usize::MAX));
    let truncated = total > input.limit;
    let notice = if truncated {
        Some(truncation(paths.len() as u64, total, Unit::Entries))
    } else if total == 0 {
        empty_answer_notice(
            &input.root,
            std::slice::from_ref(&input.pattern),
            input.hidden,
            input.no_ignore,
            ignored()?,
        )
    } else {
        None
    };
    Ok(GlobOutput {
        paths,
        total,
        truncated,
        notice,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suffix_rule() {
        assert_eq!(
            root_relative_suffix("/t/globs", "/t/globs/**/*.ts"),
            Some("**/*.ts")
        );
        assert_eq!(
            root_relative_suffix("/t/globs/", "t/globs/a.ts"),
            Some("a.ts")
        );
        assert_eq!(root_relative_suffix("/t/globs", "/t/globsx/a.ts"), None);
        assert_eq!(root_relative_suffix("/", "/a/b"), None);
        assert_eq!(root_relative_suffix(".", "/x"), None);
        assert_eq!(root_relative_suffix("./src", "/src/a.ts"), None);
    }

    #[test]
    fn truncation_units() {
        assert_eq!(
            truncation(1, 2, Unit::Files),
            "Showing 1 of 2 files; output was truncated."
        );
        assert_eq!(
            truncation(0, 5, Unit::Entries),
            "Showing 0 of 5 entries; output was truncated."
        );
    }
}
