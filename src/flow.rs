//! The `grep` and `glob` flow handlers (search-contract §1, §3, §5, §18):
//! normalise the request, call a peer, and for `grep` apply the literal
//! retry.
//!
//! These run over *any* peer, so a new peer gets the flow layer for free and
//! is compared at the peer seam, where the conformance kit compares.

use crate::contract::notice::LITERAL_RETRY_NOTICE;
use crate::contract::{
    GlobOutput, GlobRequest, GrepFlowOutput, GrepRequest, StdError, normalize_glob, normalize_grep,
};
use crate::peer::Search;

/// The metacharacters whose presence makes a pattern worth a literal retry
/// (§18).
const RETRY_METACHARACTERS: &[char] = &[
    '\\', '^', '$', '.', '|', '?', '*', '+', '(', ')', '[', ']', '{', '}',
];

/// `Grep.run`: validate and normalise `request` (§3), ask `peer`, then retry
/// literally when a regex found nothing (§18).
///
/// ```
/// use lawsuite::contract::GrepRequest;
/// use lawsuite::flow;
/// use lawsuite::peer::Noop;
/// // Validation happens before any peer is asked.
/// let err = flow::grep(&Noop, &GrepRequest::new("(?=x)")).unwrap_err();
/// assert_eq!(err.message, r#"Unsupported ripgrep pattern "(?=x)": special groups and lookaround are not supported"#);
/// ```
pub fn grep<P: Search + ?Sized>(
    peer: &P,
    request: &GrepRequest,
) -> Result<GrepFlowOutput, StdError> {
    let input = normalize_grep(request)?;
    let first = peer.grep(&input)?;
    if input.fixed_strings || !first.is_empty() || !input.pattern.contains(RETRY_METACHARACTERS) {
        return Ok(first.into());
    }
    let mut literal_input = input;
    literal_input.fixed_strings = true;
    let literal = peer.grep(&literal_input)?;
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

/// `Glob.run`: validate and normalise `request` (§5) and ask `peer`.
pub fn glob<P: Search + ?Sized>(peer: &P, request: &GlobRequest) -> Result<GlobOutput, StdError> {
    let input = normalize_glob(request)?;
    peer.glob(&input)
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
