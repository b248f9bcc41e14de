//! The `grep` and `glob` flow handlers (search-contract §1, §3, §5, §18):
//! normalise the request, call the seam, and for `grep` apply the literal
//! retry.
//!
//! They take the seam as a function, so they run over *any* peer (a peer
//! gets them as its default [`flow_grep`](crate::peer::Search::flow_grep)
//! and [`flow_glob`](crate::peer::Search::flow_glob)) and the flow layer
//! knows nothing of peers: a new peer gets the flow layer for free and is
//! compared at the seam, where the conformance kit compares.
//!
//! The literal retry asks the seam a second time, and a search of a real
//! tree is mostly the kernel's work of reading it: through two seam calls,
//! a regex that matches nothing cost `portable` twice the `openat`, `read`
//! and `getdents64` calls of one search (1.6–1.9x `rg`'s CPU time where
//! one search is 0.85x, issue 47). So a peer may search the regex and its
//! literal in one pass ([`WithLiteral`], [`grep_with_literal`]): the flow
//! asks for that pass where §18 could retry, keeps the literal's answer
//! aside, and uses it only when the regex's answer is empty. The decision
//! stays here, in one place; a peer that offers no pass gets the two seam
//! calls.

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

/// Whether §18 retries `input` literally when its answer is empty: it is a
/// regex (`fixedStrings` false) holding one of the metacharacters
/// `\ ^ $ . | ? * + ( ) [ ] { }`.
///
/// ```
/// use lawsuite::contract::GrepInput;
/// use lawsuite::flow::search::retries_literally;
/// assert!(retries_literally(&GrepInput::new("compute(a, b)", ".")));
/// assert!(!retries_literally(&GrepInput::new("plain words", ".")));
/// let mut fixed = GrepInput::new("call(x)", ".");
/// fixed.fixed_strings = true;
/// assert!(!retries_literally(&fixed));
/// ```
pub fn retries_literally(input: &GrepInput) -> bool {
    !input.fixed_strings && input.pattern.contains(RETRY_METACHARACTERS)
}

/// The answers of one pass over a tree for a regex and, alongside, its §18
/// literal retry: what a peer that offers
/// [`Search::grep_with_literal`](crate::peer::Search::grep_with_literal)
/// returns.
///
/// `regex` is exactly what the seam answers for the input; `literal` is
/// exactly what it answers for the same input with `fixedStrings: true`,
/// when the peer has it. A peer may leave `literal` out when `regex` is not
/// empty (§18 never looks at it then); when `regex` is empty and `literal`
/// is missing, the flow asks the seam for it, as it would without the pass.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WithLiteral {
    /// The regex's answer.
    pub regex: GrepOutput,
    /// The literal's answer, when the peer has it.
    pub literal: Option<GrepOutput>,
}

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
    grep_with_literal(seam, |_| None, request)
}

/// [`grep`] over a peer that may search a regex and its literal retry in
/// one pass: where §18 could retry (see [`retries_literally`]), `together`
/// is asked first, and its [`WithLiteral`] stands for the seam's two
/// answers; where it answers `None` (the peer does not offer the pass, or
/// not for this input), the seam is asked as [`grep`] asks it. The answer
/// is the same either way; a pass saves the second walk of the tree when
/// the regex finds nothing.
///
/// ```
/// use lawsuite::contract::{GrepOutput, GrepRequest};
/// use lawsuite::flow::search::{WithLiteral, grep_with_literal};
///
/// let literal = GrepOutput { files: vec!["a.py".into()], ..GrepOutput::default() };
/// let together = |_: &_| Some(Ok(WithLiteral { regex: GrepOutput::default(), literal: Some(literal.clone()) }));
/// let seam = |_: &_| -> Result<GrepOutput, _> { unreachable!("one pass answered both") };
/// let mut request = GrepRequest::new("f(x)");
/// request.files_with_matches = Some(true);
/// let out = grep_with_literal(seam, together, &request)?;
/// assert_eq!((out.files, out.retried_as_literal), (vec!["a.py".to_string()], Some(true)));
/// # Ok::<(), lawsuite::contract::StdError>(())
/// ```
pub fn grep_with_literal(
    seam: impl Fn(&GrepInput) -> Result<GrepOutput, StdError>,
    together: impl Fn(&GrepInput) -> Option<Result<WithLiteral, StdError>>,
    request: &GrepRequest,
) -> Result<GrepFlowOutput, StdError> {
    let input = normalize_grep(request)?;
    if !retries_literally(&input) {
        return Ok(seam(&input)?.into());
    }
    let (first, literal) = match together(&input) {
        Some(answers) => {
            let WithLiteral { regex, literal } = answers?;
            (regex, literal)
        }
        None => (seam(&input)?, None),
    };
    if !first.is_empty() {
        return Ok(first.into());
    }
    let literal = match literal {
        Some(literal) => literal,
        None => {
            let mut literal_input = input;
            literal_input.fixed_strings = true;
            seam(&literal_input)?
        }
    };
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
