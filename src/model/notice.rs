//! Notices, search-contract §14 (truncation) and §16 (unsatisfiable globs
//! and ignore files), each sentence built as the spec spells it.

use std::path::Path;

use super::glob::{canonical, expansions};
use super::walk::SKIPPED;

/// §14: the truncation notice; `unit` is `matches`, `files` or `entries`.
pub(crate) fn truncation(shown: u64, total: u64, unit: &str) -> String {
    format!("Showing {shown} of {total} {unit}; output was truncated.")
}

const IGNORE_SENTENCE: &str =
    "No results; ignore files excluded paths. Retry with noIgnore: true to include them.";

/// §16 for an empty answer: `globs` are grep's globs or glob's
/// `[pattern]`, `ignored` the walk's flag (§7.5).
pub(crate) fn empty_answer(
    root: &str,
    globs: &[String],
    hidden: bool,
    no_ignore: bool,
    ignored: bool,
) -> Option<String> {
    // Step 1.
    if !std::fs::metadata(root).is_ok_and(|m| m.is_dir()) {
        return None;
    }
    // Step 2.
    let mut sentences: Vec<String> = Vec::new();
    let mut positives = 0;
    for glob in globs.iter().filter(|g| !g.starts_with('!')) {
        positives += 1;
        if let Some(reason) = unsatisfiable(root, glob, hidden) {
            sentences.push(format!(
                "No file under {root} can match \"{glob}\": {reason}."
            ));
        }
    }
    // Step 3.
    if !sentences.is_empty() && sentences.len() == positives {
        return Some(sentences.join(" "));
    }
    // Step 4.
    if !no_ignore && ignored {
        sentences.push(IGNORE_SENTENCE.to_string());
    }
    // Step 5.
    if sentences.is_empty() {
        None
    } else {
        Some(sentences.join(" "))
    }
}

/// §16 step 2 for one positive glob: the reason no file can match it (the
/// root-relative suffix hint when there is one), or `None` if one can.
fn unsatisfiable(root: &str, glob: &str, hidden: bool) -> Option<String> {
    let c = canonical(glob);
    let mut first_reason = None;
    for e in expansions(&c) {
        let reason = expansion_reason(root, &e, hidden)?;
        first_reason.get_or_insert(reason);
    }
    let reason = first_reason?;
    let c_rest = c.trim_start_matches('/');
    let r_rest = root.trim_start_matches('/').trim_end_matches('/');
    if !r_rest.is_empty()
        && let Some(suffix) = c_rest
            .strip_prefix(r_rest)
            .and_then(|rest| rest.strip_prefix('/'))
    {
        return Some(format!(
            "glob patterns are relative to the search root, so use \"{suffix}\" instead"
        ));
    }
    Some(reason)
}

/// One expansion's reason, or `None` when it is satisfiable.
fn expansion_reason(root: &str, e: &str, hidden: bool) -> Option<String> {
    if !e.contains('/') {
        return None;
    }
    let rest = e.strip_prefix('/').unwrap_or(e);
    let segments: Vec<&str> = rest.split('/').filter(|s| !s.is_empty()).collect();
    let wild = segments
        .iter()
        .position(|s| s.contains(['*', '?', '{', '}']));
    let literal: &[&str] = match wild {
        Some(at) => &segments[..at],
        None => &segments[..segments.len().saturating_sub(1)],
    };
    if literal.is_empty() {
        return None;
    }
    if let Some(skipped) = literal.iter().find(|s| SKIPPED.contains(*s)) {
        return Some(format!(
            "{skipped} is never descended into; name it as the search root to look inside it"
        ));
    }
    if !hidden && literal.iter().any(|s| s.starts_with('.')) {
        return Some("hidden paths are excluded unless hidden is true".to_string());
    }
    let joined = literal.join("/");
    if std::fs::metadata(Path::new(root).join(&joined)).is_ok_and(|m| m.is_dir()) {
        return None;
    }
    Some(format!("there is no {joined} directory there"))
}
