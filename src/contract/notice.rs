//! The notices of search-contract §14 (truncation) and §16 (unsatisfiable
//! globs and ignore rules), with their exact templates.
//!
//! Every notice string lawsuite emits is written here, so a template appears
//! once in the code base.

use std::fs;

use super::glob::{brace_expansions, canonical_glob, literal_dir_segments};
use super::order::Smallest;
use super::skip::{is_hidden, is_skipped};
use super::{GlobInput, GlobOutput, StdError, join_path};

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
    format!("Showing {shown} of {total} {}{TRUNCATED}", unit.as_str())
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

// The fixed words of §16 step 2's sentences, written once: the sentences
// below are built from them and [`Sentence::all_in`] recognises them.
const CAN_MATCH: &str = " can match ";
const NEVER_DESCENDED: &str =
    " is never descended into; name it as the search root to look inside it";
const HIDDEN_EXCLUDED: &str = "hidden paths are excluded unless hidden is true";
const NO_DIRECTORY: &str = "there is no ";
const RELATIVE_TO_ROOT: &str = "glob patterns are relative to the search root, so use ";
const TRUNCATED: &str = "; output was truncated.";

/// Which rule a sentence of a notice comes from: what a finding about a
/// notice is grouped by, so that a peer missing the ignore sentence and a
/// peer missing an unsatisfiable-glob sentence are two bugs, not one.
///
/// ```
/// use lawsuite::contract::notice::{Sentence, IGNORE_NOTICE};
/// let notice = format!(r#"No file under /r can match "gone/*.ts": there is no gone directory there. {IGNORE_NOTICE}"#);
/// assert_eq!(Sentence::all_in(&notice), [Sentence::NoDirectory, Sentence::Ignore]);
/// assert_eq!(Sentence::Ignore.section(), "search-contract §16");
/// assert_eq!(Sentence::all_in("Showing 1 of 2 files; output was truncated."), [Sentence::Truncation]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Sentence {
    /// «Showing … output was truncated.» (§14; read-ls-flows §1.5 for
    /// `read`).
    Truncation,
    /// The long-line suffix of a `read` page (read-ls-flows §1.5).
    LongLine,
    /// An unsatisfiable glob whose literal directory is in the skip list
    /// (§16 step 2, §7.3).
    SkipList,
    /// An unsatisfiable glob through a hidden directory (§16 step 2).
    Hidden,
    /// An unsatisfiable glob through a directory that is not there (§16
    /// step 2).
    NoDirectory,
    /// An unsatisfiable glob that repeats the root's own path (§16 step 2,
    /// the root-relative suffix).
    RootRelative,
    /// «No results; ignore files excluded paths…» (§16 step 4).
    Ignore,
    /// The literal retry's sentence (§18).
    LiteralRetry,
    /// Words no rule of the contract writes.
    Other,
}

impl Sentence {
    /// The rules whose sentences `notice` holds, each once, in this enum's
    /// order (a sentence is found by its fixed words; text none of them
    /// explains is [`Sentence::Other`]).
    pub fn all_in(notice: &str) -> Vec<Sentence> {
        let mut found: Vec<Sentence> = Vec::new();
        let mut at = |needle: &str, sentence: Sentence| {
            if notice.contains(needle) {
                found.push(sentence);
            }
        };
        at(TRUNCATED, Sentence::Truncation);
        at(LONG_LINE_SUFFIX, Sentence::LongLine);
        at(NEVER_DESCENDED, Sentence::SkipList);
        at(HIDDEN_EXCLUDED, Sentence::Hidden);
        at(RELATIVE_TO_ROOT, Sentence::RootRelative);
        at(IGNORE_NOTICE, Sentence::Ignore);
        at(LITERAL_RETRY_NOTICE, Sentence::LiteralRetry);
        // "there is no " is only the missing-directory reason after "can
        // match" (a path may hold the words).
        let starts: Vec<usize> = notice.match_indices(CAN_MATCH).map(|(i, _)| i).collect();
        for (n, &i) in starts.iter().enumerate() {
            let end = starts.get(n + 1).copied().unwrap_or(notice.len());
            if notice[i..end].contains(&format!("\": {NO_DIRECTORY}")) {
                found.push(Sentence::NoDirectory);
            }
        }
        found.sort();
        found.dedup();
        if found.is_empty() && !notice.trim().is_empty() {
            found.push(Sentence::Other);
        }
        found
    }

    /// The spec section whose rule writes it.
    pub fn section(self) -> &'static str {
        match self {
            Sentence::Truncation => "search-contract §14",
            Sentence::LongLine => "read-ls-flows §1",
            Sentence::SkipList
            | Sentence::Hidden
            | Sentence::NoDirectory
            | Sentence::RootRelative
            | Sentence::Ignore => "search-contract §16",
            Sentence::LiteralRetry => "search-contract §18",
            Sentence::Other => "search-contract §16",
        }
    }

    /// A short name for reports: `ignore`, `no-directory`, ….
    pub fn name(self) -> &'static str {
        match self {
            Sentence::Truncation => "truncation",
            Sentence::LongLine => "long-line",
            Sentence::SkipList => "skip-list",
            Sentence::Hidden => "hidden",
            Sentence::NoDirectory => "no-directory",
            Sentence::RootRelative => "root-relative",
            Sentence::Ignore => "ignore",
            Sentence::LiteralRetry => "literal-retry",
            Sentence::Other => "other",
        }
    }
}

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
            format!("{skipped}{NEVER_DESCENDED}")
        } else if !hidden && segments.iter().any(|s| is_hidden(s)) {
            HIDDEN_EXCLUDED.to_string()
        } else {
            let dir = segments.join("/");
            if fs::metadata(join_path(root, &dir)).is_ok_and(|m| m.is_dir()) {
                return None;
            }
            format!("{NO_DIRECTORY}{dir} directory there")
        };
        first_reason.get_or_insert(reason);
    }
    let reason = first_reason?;
    Some(match root_relative_suffix(root, &canonical) {
        Some(suffix) => format!(
            "No file under {root}{CAN_MATCH}\"{glob}\": {RELATIVE_TO_ROOT}\"{suffix}\" instead."
        ),
        None => format!("No file under {root}{CAN_MATCH}\"{glob}\": {reason}."),
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
/// Every peer builds its glob answer here or in [`glob_answer_from`].
pub fn glob_answer(
    input: &GlobInput,
    paths: Vec<String>,
    ignored: impl FnOnce() -> Result<bool, StdError>,
) -> Result<GlobOutput, StdError> {
    let mut kept = Smallest::new(input.limit);
    for path in paths {
        kept.offer(path);
    }
    glob_answer_from(input, kept, ignored)
}

/// [`glob_answer`] from the matching paths already cut to the `limit`
/// smallest as they were found ([`Smallest`], made with `input.limit`):
/// what a walk that never holds every match hands on.
pub fn glob_answer_from(
    input: &GlobInput,
    kept: Smallest,
    ignored: impl FnOnce() -> Result<bool, StdError>,
) -> Result<GlobOutput, StdError> {
    let total = kept.total();
    let mut paths = kept.into_sorted();
    // A selection made with a larger limit is cut here.
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
