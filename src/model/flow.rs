//! The `grep` and `glob` flows, search-contract §2–§5 and §18: what a
//! caller's request goes through before and after the model's own seam.
//!
//! * §3: the checks, in the spec's order (the first failing one wins): the
//!   option conflicts, the pattern (§10, in [`super::pattern`]), each glob
//!   in array order (§8.1, in [`super::glob`]);
//! * §4 / §5: every default filled and the limit capped, so the seam gets
//!   a [`GrepInput`] / [`GlobInput`] with every field resolved;
//! * §18: a regular expression that found nothing, and holds one of the
//!   metacharacters, is asked again as a literal; the literal answer, if
//!   it found something, comes back marked and with the retry notice in
//!   front of its own.
//!
//! Written from the spec's sentences, not from lawsuite's flow layer
//! ([`crate::flow::search`], [`crate::contract::normalize_grep`]): with
//! its own reading here, a wrong check, default or retry in that layer is a
//! difference between `model` and every peer that runs on it.

use crate::contract::{
    ErrorCode, GlobInput, GlobOutput, GlobRequest, GrepFlowOutput, GrepInput, GrepOutput,
    GrepRequest, StdError,
};

use super::glob;
use super::pattern::{check, refuse};

/// §19 `MAX_GREP_MATCHES`: the default `limit` of grep and its cap (§2, §4).
const MAX_GREP_MATCHES: u64 = 200;

/// §19 `MAX_ENTRIES`: the default `limit` of glob and its cap (§5).
const MAX_ENTRIES: u64 = 1000;

/// §18: the characters whose presence makes a pattern worth a literal retry.
const METACHARACTERS: [char; 14] = [
    '\\', '^', '$', '.', '|', '?', '*', '+', '(', ')', '[', ']', '{', '}',
];

/// §18: the sentence a retried answer's notice starts with.
const RETRIED: &str = "The pattern found nothing as a regular expression and these results come from re-running it literally (fixedStrings: true).";

/// «`Invalid ripgrep options: {detail}`» (§3, §17).
fn invalid_options(detail: &str) -> StdError {
    StdError::new(
        ErrorCode::InvalidInput,
        format!("Invalid ripgrep options: {detail}"),
    )
}

/// §3 checks 1–5 and §4: the normalised input a peer receives, or the
/// first refusal.
pub(crate) fn grep_input(request: &GrepRequest) -> Result<GrepInput, StdError> {
    // 1: both given as `true`; an explicit `false` is no conflict.
    if request.ignore_case == Some(true) && request.smart_case == Some(true) {
        return Err(invalid_options("-i and -S are mutually exclusive"));
    }
    // 2: presence is what counts, even of a 0.
    if request.context.is_some()
        && (request.before_context.is_some() || request.after_context.is_some())
    {
        return Err(invalid_options("-C cannot be combined with -A or -B"));
    }
    // 3.
    if matches!(request.max_count, Some(count) if count < 1) {
        return Err(invalid_options("--max-count must be at least 1"));
    }
    // 4, with `fixedStrings` defaulted to false.
    let fixed_strings = request.fixed_strings.unwrap_or(false);
    check(&request.pattern, fixed_strings)?;
    // 5: in array order, the first refused glob.
    let globs = request.globs.clone().unwrap_or_default();
    for g in &globs {
        if let Some(detail) = glob::refusal(g) {
            return Err(refuse(g, detail));
        }
    }
    // §4's table, row by row.
    Ok(GrepInput {
        pattern: request.pattern.clone(),
        root: request.root.clone().unwrap_or_else(|| ".".to_string()),
        fixed_strings,
        ignore_case: request.ignore_case.unwrap_or(false),
        smart_case: request.smart_case.unwrap_or(false),
        globs,
        before_context: request
            .context
            .unwrap_or_else(|| request.before_context.unwrap_or(0)),
        after_context: request
            .context
            .unwrap_or_else(|| request.after_context.unwrap_or(0)),
        max_count: request.max_count,
        files_with_matches: request.files_with_matches.unwrap_or(false),
        hidden: request.hidden.unwrap_or(false),
        no_ignore: request.no_ignore.unwrap_or(false),
        symbols: request.symbols.unwrap_or(true),
        // Zero is forwarded, not defaulted.
        limit: request
            .limit
            .unwrap_or(MAX_GREP_MATCHES)
            .min(MAX_GREP_MATCHES),
    })
}

/// §5: the glob's check (§8.1) and the normalised input.
pub(crate) fn glob_input(request: &GlobRequest) -> Result<GlobInput, StdError> {
    if let Some(detail) = glob::refusal(&request.pattern) {
        return Err(refuse(&request.pattern, detail));
    }
    Ok(GlobInput {
        pattern: request.pattern.clone(),
        root: request.root.clone().unwrap_or_else(|| ".".to_string()),
        hidden: request.hidden.unwrap_or(false),
        no_ignore: request.no_ignore.unwrap_or(false),
        limit: request.limit.unwrap_or(MAX_ENTRIES).min(MAX_ENTRIES),
    })
}

/// `Grep.run` (§1, §3, §18) over `seam`, the model's own `grep`.
pub(crate) fn grep(
    seam: impl Fn(&GrepInput) -> Result<GrepOutput, StdError>,
    request: &GrepRequest,
) -> Result<GrepFlowOutput, StdError> {
    let input = grep_input(request)?;
    let first = seam(&input)?;
    // §18: "empty" is no match and no file listed, whatever `total` was
    // (a `limit: 0` answer is empty).
    let empty = |out: &GrepOutput| out.matches.is_empty() && out.files.is_empty();
    let worth_a_retry = !input.fixed_strings
        && empty(&first)
        && input.pattern.chars().any(|c| METACHARACTERS.contains(&c));
    if !worth_a_retry {
        return Ok(flow_output(first, None));
    }
    let literal = seam(&GrepInput {
        fixed_strings: true,
        ..input
    })?;
    if empty(&literal) {
        // The first answer, with whatever notice it had, unmarked.
        return Ok(flow_output(first, None));
    }
    let notice = match &literal.notice {
        Some(own) => format!("{RETRIED} {own}"),
        None => RETRIED.to_string(),
    };
    let mut out = flow_output(literal, Some(true));
    out.notice = Some(notice);
    Ok(out)
}

/// `Glob.run` (§5) over `seam`, the model's own `glob`.
pub(crate) fn glob(
    seam: impl Fn(&GlobInput) -> Result<GlobOutput, StdError>,
    request: &GlobRequest,
) -> Result<GlobOutput, StdError> {
    seam(&glob_input(request)?)
}

/// §6.2: a peer answer as the flow's, `retriedAsLiteral` present only
/// when `true`.
fn flow_output(out: GrepOutput, retried: Option<bool>) -> GrepFlowOutput {
    GrepFlowOutput {
        matches: out.matches,
        files: out.files,
        files_searched: out.files_searched,
        skipped_binary: out.skipped_binary,
        truncated: out.truncated,
        retried_as_literal: retried,
        notice: out.notice,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(json: &str) -> (ErrorCode, String) {
        let request: GrepRequest = serde_json::from_str(json).unwrap();
        let err = grep_input(&request).unwrap_err();
        (err.code, err.message)
    }

    #[test]
    fn the_checks_of_3_in_order() {
        let all = r#"{"pattern":"(","ignoreCase":true,"smartCase":true,"context":0,"afterContext":0,"maxCount":0,"globs":[""]}"#;
        assert_eq!(
            refused(all).1,
            "Invalid ripgrep options: -i and -S are mutually exclusive"
        );
        let no1 = r#"{"pattern":"(","context":0,"beforeContext":0,"maxCount":0,"globs":[""]}"#;
        assert_eq!(
            refused(no1).1,
            "Invalid ripgrep options: -C cannot be combined with -A or -B"
        );
        let no2 = r#"{"pattern":"(","maxCount":0,"globs":[""]}"#;
        assert_eq!(
            refused(no2),
            (
                ErrorCode::InvalidInput,
                "Invalid ripgrep options: --max-count must be at least 1".into()
            )
        );
        let no3 = r#"{"pattern":"(","globs":[""]}"#;
        assert_eq!(
            refused(no3).1,
            r#"Unsupported ripgrep pattern "(": "(" at column 1 is never closed; write \( for a literal parenthesis"#
        );
        let no4 = r#"{"pattern":"a","globs":["*.ts","{a}",""]}"#;
        assert_eq!(
            refused(no4),
            (
                ErrorCode::InvalidPattern,
                r#"Unsupported ripgrep pattern "{a}": braces must contain alternatives"#.into()
            )
        );
        // Fixed strings skip the grammar, not the ASCII check.
        let fixed = r#"{"pattern":"(?=x","fixedStrings":true}"#;
        assert!(grep_input(&serde_json::from_str(fixed).unwrap()).is_ok());
        assert_eq!(
            refused(r#"{"pattern":"(?=x"}"#).1,
            r#"Unsupported ripgrep pattern "(?=x": special groups and lookaround are not supported"#
        );
    }

    #[test]
    fn the_defaults_of_4() {
        let input = grep_input(&GrepRequest::new("needle")).unwrap();
        assert_eq!(
            serde_json::to_string(&input).unwrap(),
            r#"{"pattern":"needle","root":".","fixedStrings":false,"ignoreCase":false,"smartCase":false,"globs":[],"beforeContext":0,"afterContext":0,"filesWithMatches":false,"hidden":false,"noIgnore":false,"symbols":true,"limit":200}"#
        );
        let request: GrepRequest = serde_json::from_str(
            r#"{"pattern":"needle","root":"/search","context":2,"noIgnore":true,"hidden":true,"symbols":false,"limit":0}"#,
        )
        .unwrap();
        let input = grep_input(&request).unwrap();
        assert_eq!((input.before_context, input.after_context), (2, 2));
        assert!(input.no_ignore && input.hidden && !input.symbols);
        assert_eq!((input.limit, input.root.as_str()), (0, "/search"));
        let request: GrepRequest =
            serde_json::from_str(r#"{"pattern":"a","afterContext":3,"limit":201}"#).unwrap();
        let input = grep_input(&request).unwrap();
        assert_eq!((input.before_context, input.after_context), (0, 3));
        assert_eq!(input.limit, 200);
    }

    #[test]
    fn the_glob_flow_of_5() {
        let request: GlobRequest =
            serde_json::from_str(r#"{"pattern":"!*.md","limit":1001}"#).unwrap();
        assert_eq!(
            serde_json::to_string(&glob_input(&request).unwrap()).unwrap(),
            r#"{"pattern":"!*.md","root":".","hidden":false,"noIgnore":false,"limit":1000}"#
        );
        let err = glob_input(&GlobRequest::new("  ")).unwrap_err();
        assert_eq!(
            err.message,
            r#"Unsupported ripgrep pattern "  ": glob patterns must not be empty"#
        );
    }

    fn hit() -> GrepOutput {
        serde_json::from_value(serde_json::json!({
            "matches": [{"file": "a", "line": 1, "text": "x(", "before": [], "after": []}],
            "files": [], "filesSearched": 1, "skippedBinary": 0, "truncated": false
        }))
        .unwrap()
    }

    #[test]
    fn the_literal_retry_of_18() {
        // A regex that finds nothing is asked again literally.
        let asked = std::cell::RefCell::new(Vec::new());
        let seam = |input: &GrepInput| {
            asked.borrow_mut().push(input.fixed_strings);
            Ok(if input.fixed_strings {
                hit()
            } else {
                GrepOutput::default()
            })
        };
        let out = grep(seam, &GrepRequest::new("x.")).unwrap_or_default();
        assert_eq!(*asked.borrow(), [false, true]);
        assert_eq!(out.retried_as_literal, Some(true));
        assert_eq!(out.notice.as_deref(), Some(RETRIED));
        // No metacharacter, or a fixed string: one call, as is.
        asked.borrow_mut().clear();
        let out = grep(seam, &GrepRequest::new("plain")).unwrap_or_default();
        assert_eq!((asked.borrow().len(), out.retried_as_literal), (1, None));
        let mut fixed = GrepRequest::new("call(x)");
        fixed.fixed_strings = Some(true);
        asked.borrow_mut().clear();
        grep(seam, &fixed).unwrap_or_default();
        assert_eq!(*asked.borrow(), [true]);
        // A literal answer that is empty too gives the first one back.
        let nothing = |_: &GrepInput| {
            Ok(GrepOutput {
                notice: Some("first".into()),
                ..GrepOutput::default()
            })
        };
        let out = grep(nothing, &GrepRequest::new("a.b")).unwrap_or_default();
        assert_eq!(
            (out.retried_as_literal, out.notice.as_deref()),
            (None, Some("first"))
        );
        // The literal answer's own notice follows the retry sentence.
        let truncated = |input: &GrepInput| {
            Ok(if input.fixed_strings {
                GrepOutput {
                    notice: Some("Showing 1 of 2 files; output was truncated.".into()),
                    ..hit()
                }
            } else {
                GrepOutput::default()
            })
        };
        let out = grep(truncated, &GrepRequest::new("a.b")).unwrap_or_default();
        assert_eq!(
            out.notice.as_deref(),
            Some(
                "The pattern found nothing as a regular expression and these results come from re-running it literally (fixedStrings: true). Showing 1 of 2 files; output was truncated."
            )
        );
    }
}
