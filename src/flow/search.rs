//! The `grep` and `glob` flow handlers (search-contract §1, §3, §5, §18):
//! normalise the request, call the seam, and for `grep` apply the literal
//! retry.
//!
//! They take the seam as a function, so they run over *any* peer (a peer
//! gets them as its default [`flow_grep`](crate::peer::Search::flow_grep)
//! and [`flow_glob`](crate::peer::Search::flow_glob)) and the flow layer
//! knows nothing of peers: a new peer gets the flow layer for free and is
//! compared at the seam, where the conformance kit compares.

use crate::contract::notice::LITERAL_RETRY_NOTICE;
use crate::contract::{
    GlobInput, GlobOutput, GlobRequest, GrepFlowOutput, GrepInput, GrepOutput, GrepRequest,
    StdError, normalize_glob, normalize_grep,
};

/// The metacharacters whose presence makes a pattern worth a literal retry
/// (§18).
const RETRY_METACHARACTERS: &[char] = &[
    '\\', '^', '$', '.', '|', '?', '*', '+', '(', ')', '[', ']', '{', '}',
];

/// `Grep.run`: validate and normalise `request` (§3), ask `seam`, then
/// retry literally when a regex found nothing (§18).
///
/// ```
/// use lawsuite::contract::{GrepOutput, GrepRequest};
/// use lawsuite::flow;
/// // Validation happens before the seam is asked.
/// let err = flow::grep(|_| Ok(GrepOutput::default()), &GrepRequest::new("(?=x)")).unwrap_err();
/// assert_eq!(err.message, r#"Unsupported ripgrep pattern "(?=x)": special groups and lookaround are not supported"#);
/// ```
pub fn grep(
    seam: impl Fn(&GrepInput) -> Result<GrepOutput, StdError>,
    request: &GrepRequest,
) -> Result<GrepFlowOutput, StdError> {
    let input = normalize_grep(request)?;
    let first = seam(&input)?;
    if input.fixed_strings || !first.is_empty() || !input.pattern.contains(RETRY_METACHARACTERS) {
        return Ok(first.into());
    }
    let mut literal_input = input;
    literal_input.fixed_strings = true;
    let literal = seam(&literal_input)?;
    if literal.is_empty() {
        return Ok(first.into());
    }
    let notice = match &literal.notice {
        Some(n) => format!("{LITERAL_RETRY_NOTICE} {n}"),
        None => LITERAL_RETRY_NOTICE.to_string(),
    };
    let mut out = GrepFlowOutput::from(literal);
    out.retried_as_literal = Some(true);
    out.notice = Some(notice);
    Ok(out)
}

/// `Glob.run`: validate and normalise `request` (§5) and ask `seam`.
pub fn glob(
    seam: impl Fn(&GlobInput) -> Result<GlobOutput, StdError>,
    request: &GlobRequest,
) -> Result<GlobOutput, StdError> {
    let input = normalize_glob(request)?;
    seam(&input)
}

/// `effectsFor({root})` (§1): the one read a flow declares for its root.
///
/// ```
/// use lawsuite::flow::reads_for_root;
/// assert_eq!(reads_for_root(Some("/src//")), "/src/**");
/// assert_eq!(reads_for_root(Some("/")), "/**");
/// assert_eq!(reads_for_root(None), "./**");
/// ```
pub fn reads_for_root(root: Option<&str>) -> String {
    match root {
        Some("/") => "/**".to_string(),
        Some(root) => format!("{}/**", root.trim_end_matches('/')),
        None => "./**".to_string(),
    }
}
