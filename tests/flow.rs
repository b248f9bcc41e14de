//! The flow layer over a scripted peer (search-contract §1, §3, §18):
//! how many times the peer is asked, and what the caller gets back.

use std::sync::Mutex;

use lawsuite::contract::{
    ContextLine, GlobInput, GlobOutput, GrepInput, GrepOutput, GrepRequest, Match, StdError,
};
use lawsuite::flow::WithLiteral;
use lawsuite::peer::Search;

/// Answers from a script: regex calls get `regex`, literal calls `literal`.
struct Scripted {
    regex: GrepOutput,
    literal: GrepOutput,
    calls: Mutex<Vec<GrepInput>>,
}

impl Search for Scripted {
    fn name(&self) -> &str {
        "scripted"
    }
    fn version(&self) -> String {
        "0".into()
    }
    fn grep(&self, input: &GrepInput) -> Result<GrepOutput, StdError> {
        self.calls.lock().unwrap().push(input.clone());
        Ok(if input.fixed_strings {
            self.literal.clone()
        } else {
            self.regex.clone()
        })
    }
    fn glob(&self, _: &GlobInput) -> Result<GlobOutput, StdError> {
        Ok(GlobOutput::default())
    }
}

fn hit() -> GrepOutput {
    GrepOutput {
        matches: vec![Match {
            file: "a.py".into(),
            line: 1,
            text: "value = compute(a, b)".into(),
            before: Vec::<ContextLine>::new(),
            after: vec![],
            symbol: None,
        }],
        files_searched: 1,
        ..GrepOutput::default()
    }
}

fn scripted(regex: GrepOutput, literal: GrepOutput) -> Scripted {
    Scripted {
        regex,
        literal,
        calls: Mutex::new(Vec::new()),
    }
}

#[test]
fn empty_regex_answer_is_retried_literally() {
    let peer = scripted(
        GrepOutput {
            files_searched: 1,
            ..GrepOutput::default()
        },
        hit(),
    );
    let out = peer.flow_grep(&GrepRequest::new("compute(a, b)")).unwrap();
    assert_eq!(out.retried_as_literal, Some(true));
    assert_eq!(
        out.notice.as_deref(),
        Some(
            "The pattern found nothing as a regular expression and these results come from re-running it literally (fixedStrings: true)."
        )
    );
    let calls = peer.calls.lock().unwrap();
    assert_eq!(calls.len(), 2);
    assert!(!calls[0].fixed_strings && calls[1].fixed_strings);
    assert_eq!(calls[0].pattern, calls[1].pattern);
}

#[test]
fn fixed_strings_is_asked_exactly_once() {
    let peer = scripted(GrepOutput::default(), GrepOutput::default());
    let mut req = GrepRequest::new("call(x)");
    req.fixed_strings = Some(true);
    let out = peer.flow_grep(&req).unwrap();
    assert!(out.matches.is_empty());
    assert_eq!(out.retried_as_literal, None);
    assert_eq!(peer.calls.lock().unwrap().len(), 1);
}

#[test]
fn no_metacharacter_no_retry() {
    let peer = scripted(GrepOutput::default(), hit());
    peer.flow_grep(&GrepRequest::new("plain words")).unwrap();
    assert_eq!(peer.calls.lock().unwrap().len(), 1);
}

#[test]
fn empty_literal_answer_returns_the_original() {
    let original = GrepOutput {
        notice: Some("original notice".into()),
        ..GrepOutput::default()
    };
    let peer = scripted(original, GrepOutput::default());
    let out = peer.flow_grep(&GrepRequest::new("absent(x)")).unwrap();
    assert_eq!(out.notice.as_deref(), Some("original notice"));
    assert_eq!(out.retried_as_literal, None);
    assert_eq!(peer.calls.lock().unwrap().len(), 2);
}

#[test]
fn literal_notice_is_appended_after_one_space() {
    let literal = GrepOutput {
        files: vec!["a.py".into()],
        truncated: true,
        notice: Some("Showing 1 of 2 files; output was truncated.".into()),
        ..GrepOutput::default()
    };
    let peer = scripted(GrepOutput::default(), literal);
    let mut req = GrepRequest::new("compute(a, b)");
    req.files_with_matches = Some(true);
    let out = peer.flow_grep(&req).unwrap();
    assert_eq!(
        out.notice.as_deref(),
        Some(
            "The pattern found nothing as a regular expression and these results come from re-running it literally (fixedStrings: true). Showing 1 of 2 files; output was truncated."
        )
    );
    // Schema order: retriedAsLiteral before notice (§6.2, README Q4).
    let json = serde_json::to_string(&out).unwrap();
    assert!(json.find("retriedAsLiteral").unwrap() < json.find("notice").unwrap());
}

#[test]
fn limit_zero_answer_counts_as_empty() {
    // §18: "empty" means no matches and no files, even when total > 0.
    let zero = GrepOutput {
        truncated: true,
        notice: Some("Showing 0 of 3 matches; output was truncated.".into()),
        ..GrepOutput::default()
    };
    let peer = scripted(zero, hit());
    let mut req = GrepRequest::new("a.b");
    req.limit = Some(0);
    let out = peer.flow_grep(&req).unwrap();
    assert_eq!(out.retried_as_literal, Some(true));
}

#[test]
fn invalid_requests_never_reach_the_peer() {
    let peer = scripted(GrepOutput::default(), GrepOutput::default());
    let mut req = GrepRequest::new("needle");
    req.context = Some(1);
    req.after_context = Some(0);
    assert_eq!(
        peer.flow_grep(&req).unwrap_err().message,
        "Invalid ripgrep options: -C cannot be combined with -A or -B"
    );
    assert!(peer.calls.lock().unwrap().is_empty());
}

/// A peer that offers the one-pass search of a regex and its literal
/// (`Search::grep_with_literal`), scripted: what the pass answers, and
/// how often the seam and the pass are asked.
struct OnePass {
    seam: Scripted,
    pass: fn() -> Result<WithLiteral, StdError>,
    passes: Mutex<usize>,
}

impl Search for OnePass {
    fn name(&self) -> &str {
        "one-pass"
    }
    fn version(&self) -> String {
        "0".into()
    }
    fn grep(&self, input: &GrepInput) -> Result<GrepOutput, StdError> {
        self.seam.grep(input)
    }
    fn glob(&self, input: &GlobInput) -> Result<GlobOutput, StdError> {
        self.seam.glob(input)
    }
    fn grep_with_literal(&self, _: &GrepInput) -> Option<Result<WithLiteral, StdError>> {
        *self.passes.lock().unwrap() += 1;
        Some((self.pass)())
    }
}

fn one_pass(pass: fn() -> Result<WithLiteral, StdError>) -> OnePass {
    OnePass {
        seam: scripted(GrepOutput::default(), hit()),
        pass,
        passes: Mutex::new(0),
    }
}

/// Where the peer offers the pass, a regex that finds nothing costs one
/// search: the seam is not asked at all, and the answer is the one two
/// seam calls give.
#[test]
fn a_one_pass_peer_is_asked_once_for_a_retry() {
    let peer = one_pass(|| {
        Ok(WithLiteral {
            regex: GrepOutput::default(),
            literal: Some(hit()),
        })
    });
    let request = GrepRequest::new("compute(a, b)");
    let out = peer.flow_grep(&request).unwrap();
    assert_eq!(*peer.passes.lock().unwrap(), 1);
    assert!(peer.seam.calls.lock().unwrap().is_empty());
    let twice = scripted(GrepOutput::default(), hit())
        .flow_grep(&request)
        .unwrap();
    assert_eq!(out, twice);
    assert_eq!(out.retried_as_literal, Some(true));
}

/// The pass is asked only where §18 could retry: a fixed string or a
/// pattern without metacharacters goes to the seam, once.
#[test]
fn the_pass_is_asked_only_where_a_retry_is_possible() {
    let peer = one_pass(|| unreachable!("no retry is possible"));
    peer.flow_grep(&GrepRequest::new("plain words")).unwrap();
    let mut fixed = GrepRequest::new("call(x)");
    fixed.fixed_strings = Some(true);
    peer.flow_grep(&fixed).unwrap();
    assert_eq!(*peer.passes.lock().unwrap(), 0);
    assert_eq!(peer.seam.calls.lock().unwrap().len(), 2);
}

/// A pass that leaves the literal's answer out beside an empty regex
/// answer gets the seam asked for it, as without the pass; one whose
/// regex found something is returned as it is.
#[test]
fn a_missing_literal_answer_is_asked_of_the_seam() {
    let peer = one_pass(|| {
        Ok(WithLiteral {
            regex: GrepOutput::default(),
            literal: None,
        })
    });
    let out = peer.flow_grep(&GrepRequest::new("compute(a, b)")).unwrap();
    assert_eq!(out.retried_as_literal, Some(true));
    let calls = peer.seam.calls.lock().unwrap();
    assert_eq!(calls.len(), 1);
    assert!(calls[0].fixed_strings);
    drop(calls);

    let found = one_pass(|| {
        Ok(WithLiteral {
            regex: hit(),
            literal: None,
        })
    });
    let out = found.flow_grep(&GrepRequest::new("compute(a, b)")).unwrap();
    assert_eq!(out.retried_as_literal, None);
    assert_eq!(out.matches, hit().matches);
    assert!(found.seam.calls.lock().unwrap().is_empty());
}

/// The pass's failure is the call's, as the seam's first failure is.
#[test]
fn the_pass_fails_the_call_as_the_seam_would() {
    let peer = one_pass(|| Err(StdError::no_search_configured()));
    let err = peer
        .flow_grep(&GrepRequest::new("compute(a, b)"))
        .unwrap_err();
    assert_eq!(err.message, "No search implementation is configured");
    assert!(peer.seam.calls.lock().unwrap().is_empty());
}
