//! Flow-layer validation and normalisation (search-contract §3, §4, §5).
//!
//! This is the one place a request is checked. The checks run in the spec's
//! order and the first failure wins, so a request with two problems always
//! reports the same one. What comes out is a fully resolved
//! [`GrepInput`]/[`GlobInput`]; peers trust it and never re-validate.

use super::glob::validate_glob;
use super::pattern::validate_pattern;
use super::{
    GlobInput, GlobRequest, GrepInput, GrepRequest, MAX_ENTRIES, MAX_GREP_MATCHES, StdError,
};

/// Validate a `grep` request and fill its defaults (§3, then §4).
///
/// ```
/// use lawsuite::contract::{normalize_grep, ErrorCode, GrepRequest};
///
/// let input = normalize_grep(&GrepRequest::new("needle"))?;
/// assert_eq!(input.root, ".");
/// assert_eq!(input.limit, 200);
/// assert!(input.symbols);
///
/// let mut bad = GrepRequest::new("needle");
/// bad.ignore_case = Some(true);
/// bad.smart_case = Some(true);
/// let err = normalize_grep(&bad).unwrap_err();
/// assert_eq!(err.code, ErrorCode::InvalidInput);
/// assert_eq!(err.message, "Invalid ripgrep options: -i and -S are mutually exclusive");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn normalize_grep(req: &GrepRequest) -> Result<GrepInput, StdError> {
    // §3 check 1.
    if req.ignore_case == Some(true) && req.smart_case == Some(true) {
        return Err(StdError::invalid_options(
            "-i and -S are mutually exclusive",
        ));
    }
    // §3 check 2: presence counts, even `0`.
    if req.context.is_some() && (req.before_context.is_some() || req.after_context.is_some()) {
        return Err(StdError::invalid_options(
            "-C cannot be combined with -A or -B",
        ));
    }
    // §3 check 3 (drift 11: `rg --max-count 0` printed no summary).
    if req.max_count.is_some_and(|m| m < 1) {
        return Err(StdError::invalid_options("--max-count must be at least 1"));
    }
    let fixed_strings = req.fixed_strings.unwrap_or(false);
    // §3 check 4.
    validate_pattern(&req.pattern, fixed_strings)?;
    // §3 check 5: globs in array order.
    for glob in req.globs.iter().flatten() {
        validate_glob(glob)?;
    }
    // §4.
    let mut input = grep_defaults(req);
    input.limit = input.limit.min(MAX_GREP_MATCHES);
    Ok(input)
}

/// §4's defaults alone: no §3 check and no limit cap. This is the input a
/// harness hands a peer directly, below the flow layer (the kit's plans,
/// peer-level laws); [`normalize_grep`] is this plus the checks and the cap.
pub fn grep_defaults(req: &GrepRequest) -> GrepInput {
    GrepInput {
        pattern: req.pattern.clone(),
        root: req.root.clone().unwrap_or_else(|| ".".to_string()),
        fixed_strings: req.fixed_strings.unwrap_or(false),
        ignore_case: req.ignore_case.unwrap_or(false),
        smart_case: req.smart_case.unwrap_or(false),
        globs: req.globs.clone().unwrap_or_default(),
        before_context: req.context.or(req.before_context).unwrap_or(0),
        after_context: req.context.or(req.after_context).unwrap_or(0),
        max_count: req.max_count,
        files_with_matches: req.files_with_matches.unwrap_or(false),
        hidden: req.hidden.unwrap_or(false),
        no_ignore: req.no_ignore.unwrap_or(false),
        symbols: req.symbols.unwrap_or(true),
        limit: req.limit.unwrap_or(MAX_GREP_MATCHES),
    }
}

/// §5's defaults alone: no glob check and no limit cap (see [`grep_defaults`]).
pub fn glob_defaults(req: &GlobRequest) -> GlobInput {
    GlobInput {
        pattern: req.pattern.clone(),
        root: req.root.clone().unwrap_or_else(|| ".".to_string()),
        hidden: req.hidden.unwrap_or(false),
        no_ignore: req.no_ignore.unwrap_or(false),
        limit: req.limit.unwrap_or(MAX_ENTRIES),
    }
}

/// Validate a `glob` request and fill its defaults (§5).
///
/// ```
/// use lawsuite::contract::{normalize_glob, GlobRequest};
/// let mut req = GlobRequest::new("**/*.ts");
/// req.limit = Some(5000);
/// let input = normalize_glob(&req)?;
/// assert_eq!(input.limit, 1000);
/// assert_eq!(input.root, ".");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn normalize_glob(req: &GlobRequest) -> Result<GlobInput, StdError> {
    validate_glob(&req.pattern)?;
    let mut input = glob_defaults(req);
    input.limit = input.limit.min(MAX_ENTRIES);
    Ok(input)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::ErrorCode;

    fn req(json: &str) -> GrepRequest {
        serde_json::from_str(json).unwrap()
    }

    fn grep_err(json: &str) -> (ErrorCode, String) {
        let err = normalize_grep(&req(json)).unwrap_err();
        (err.code, err.message)
    }

    #[test]
    fn defaults_of_section_4() {
        let input = normalize_grep(&req(r#"{"pattern":"needle"}"#)).unwrap();
        assert_eq!(
            serde_json::to_string(&input).unwrap(),
            r#"{"pattern":"needle","root":".","fixedStrings":false,"ignoreCase":false,"smartCase":false,"globs":[],"beforeContext":0,"afterContext":0,"filesWithMatches":false,"hidden":false,"noIgnore":false,"symbols":true,"limit":200}"#
        );
    }

    #[test]
    fn explicit_values_of_section_4() {
        let input = normalize_grep(&req(
            r#"{"pattern":"needle","root":"/search","context":2,"noIgnore":true,"hidden":true,"symbols":false,"limit":0}"#,
        ))
        .unwrap();
        assert_eq!((input.before_context, input.after_context), (2, 2));
        assert!(input.no_ignore && input.hidden && !input.symbols);
        assert_eq!(input.limit, 0, "zero is forwarded, not defaulted");
        assert_eq!(input.root, "/search");
    }

    #[test]
    fn limit_is_capped_and_pattern_untouched() {
        let input = normalize_grep(&req(r#"{"pattern":" a ","limit":999,"maxCount":3}"#)).unwrap();
        assert_eq!(input.limit, 200);
        assert_eq!(input.pattern, " a ");
        assert_eq!(input.max_count, Some(3));
        let input = normalize_grep(&req(r#"{"pattern":"a","beforeContext":1}"#)).unwrap();
        assert_eq!((input.before_context, input.after_context), (1, 0));
    }

    #[test]
    fn checks_run_in_order() {
        // 1 before 2 before 3 before 4 before 5.
        let all = r#"{"pattern":"(","ignoreCase":true,"smartCase":true,"context":0,"afterContext":0,"maxCount":0,"globs":[""]}"#;
        assert_eq!(
            grep_err(all).1,
            "Invalid ripgrep options: -i and -S are mutually exclusive"
        );
        let no1 = r#"{"pattern":"(","context":0,"afterContext":0,"maxCount":0,"globs":[""]}"#;
        assert_eq!(
            grep_err(no1).1,
            "Invalid ripgrep options: -C cannot be combined with -A or -B"
        );
        let no2 = r#"{"pattern":"(","context":0,"maxCount":0,"globs":[""]}"#;
        assert_eq!(
            grep_err(no2).1,
            "Invalid ripgrep options: --max-count must be at least 1"
        );
        let no3 = r#"{"pattern":"(","maxCount":1,"globs":[""]}"#;
        assert_eq!(grep_err(no3).0, ErrorCode::InvalidPattern);
        assert!(
            grep_err(no3)
                .1
                .starts_with("Unsupported ripgrep pattern \"(\"")
        );
        let no4 = r#"{"pattern":"a","globs":["*.ts",""," "]}"#;
        assert_eq!(
            grep_err(no4),
            (
                ErrorCode::InvalidPattern,
                "Unsupported ripgrep pattern \"\": glob patterns must not be empty".to_string()
            )
        );
    }

    #[test]
    fn before_context_zero_still_conflicts() {
        let (code, _) = grep_err(r#"{"pattern":"a","context":1,"beforeContext":0}"#);
        assert_eq!(code, ErrorCode::InvalidInput);
    }

    #[test]
    fn false_and_false_do_not_conflict() {
        assert!(
            normalize_grep(&req(
                r#"{"pattern":"a","ignoreCase":false,"smartCase":true}"#
            ))
            .is_ok()
        );
        assert!(
            normalize_grep(&req(
                r#"{"pattern":"a","ignoreCase":true,"smartCase":false}"#
            ))
            .is_ok()
        );
    }

    #[test]
    fn fixed_strings_skip_grammar() {
        assert!(normalize_grep(&req(r#"{"pattern":"(?=x","fixedStrings":true}"#)).is_ok());
        let (code, msg) = grep_err(r#"{"pattern":"a\tb","fixedStrings":true}"#);
        assert_eq!(code, ErrorCode::InvalidPattern);
        assert!(
            msg.ends_with("patterns must contain printable ASCII only"),
            "{msg}"
        );
    }

    #[test]
    fn glob_normalisation() {
        let input: GlobRequest = serde_json::from_str(r#"{"pattern":"!*.md"}"#).unwrap();
        assert_eq!(
            serde_json::to_string(&normalize_glob(&input).unwrap()).unwrap(),
            r#"{"pattern":"!*.md","root":".","hidden":false,"noIgnore":false,"limit":1000}"#
        );
        let input: GlobRequest = serde_json::from_str(
            r#"{"pattern":"*","root":"/r","hidden":true,"noIgnore":true,"limit":0}"#,
        )
        .unwrap();
        let out = normalize_glob(&input).unwrap();
        assert_eq!((out.hidden, out.no_ignore, out.limit), (true, true, 0));
        for bad in ["", "  ", "!", "!  "] {
            let err = normalize_glob(&GlobRequest::new(bad)).unwrap_err();
            assert_eq!(
                err.message,
                format!("Unsupported ripgrep pattern \"{bad}\": glob patterns must not be empty")
            );
        }
    }

    proptest::proptest! {
        #[test]
        fn never_panics(pattern in "\\PC{0,64}", glob in "\\PC{0,32}", ic: bool, sc: bool, ctx in proptest::option::of(0u64..4), b in proptest::option::of(0u64..4), m in proptest::option::of(0u64..3)) {
            let req = GrepRequest {
                pattern,
                globs: Some(vec![glob]),
                ignore_case: Some(ic),
                smart_case: Some(sc),
                context: ctx,
                before_context: b,
                max_count: m,
                ..GrepRequest::default()
            };
            let _ = normalize_grep(&req);
        }
    }
}
