//! How a subject's answer differs from the reference's (conformance-kit
//! §4): where the two first differ, for a report's one line
//! ([`first_difference`]), and the **kind** of difference
//! ([`Difference`]), which is what a campaign groups findings by, what a
//! shrunk case must keep, and which spec section a drafted law pins.
//!
//! A kind names the top-level fields that differ and how (a list gained
//! items, lost items, or holds the same ones in another order), or the two
//! sides when either is not an answer (a failure by its code, a fault, a
//! panic). For a notice it also names the rule behind each side's
//! sentences ([`Sentence`]): a peer that misses the ignore notice and one
//! that misses an unsatisfiable-glob notice both differ in `/notice`, but
//! they are two bugs, and a case shrunk from the first must not end up
//! showing the second.
//!
//! ```
//! use lawsuite::kit::answer::Answer;
//! use lawsuite::kit::difference::Difference;
//! use serde_json::json;
//!
//! let expected = Answer::Value(json!({"paths": [], "total": 0, "truncated": false,
//!     "notice": "No results; ignore files excluded paths. Retry with noIgnore: true to include them."}));
//! let actual = Answer::Value(json!({"paths": ["/r/a.log"], "total": 1, "truncated": false}));
//! let d = Difference::between(&expected, &actual).unwrap();
//! assert_eq!(d.to_string(), "/notice: missing (expected ignore); /paths: items added; /total: differs");
//! assert_eq!(d.fields(), "/notice, /paths, /total");
//! ```

use std::fmt;

use serde_json::Value;

use super::answer::Answer;
use super::plan::{FileKind, GeneratedFile};
use crate::call::Call;
use crate::contract::notice::Sentence;
use crate::peer::Method;

/// How a subject's answer differs from the reference's.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Difference {
    /// Either side is not an answer of the contract.
    Sides {
        /// The subject's side.
        actual: Side,
        /// The reference's side.
        expected: Side,
    },
    /// Both answered; the top-level fields that differ, sorted by name.
    Fields(Vec<Field>),
}

/// One side of a [`Difference::Sides`].
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Side {
    /// An answer of the contract.
    Answer,
    /// A typed failure, by its code (§4: messages may differ).
    Failure(String),
    /// No answer: a failure the harness made for a peer that crashed, timed
    /// out or answered past its bounds, with the code it carries.
    Fault(String),
    /// The peer panicked.
    Panic,
}

/// A top-level field of two answers that differs.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Field {
    /// The field as a JSON pointer: `/paths`.
    pub name: String,
    /// How it differs.
    pub how: How,
    /// For a notice, the rules behind the reference's sentences and the
    /// subject's ([`Sentence::all_in`]; empty where there is no notice).
    pub sentences: Option<(Vec<Sentence>, Vec<Sentence>)>,
}

/// How two values of one field differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum How {
    /// The reference has it, the subject does not.
    Missing,
    /// The subject has it, the reference does not.
    NotExpected,
    /// A list with items the reference's lacks.
    ItemsAdded,
    /// A list without items the reference's has.
    ItemsLost,
    /// Both.
    ItemsAddedAndLost,
    /// The same items in another order.
    OrderDiffers,
    /// Two values of which neither is a list.
    Differs,
}

impl How {
    fn as_str(self) -> &'static str {
        match self {
            How::Missing => "missing",
            How::NotExpected => "not expected",
            How::ItemsAdded => "items added",
            How::ItemsLost => "items lost",
            How::ItemsAddedAndLost => "items added, items lost",
            How::OrderDiffers => "order differs",
            How::Differs => "differs",
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Side::Answer => f.write_str("answer"),
            Side::Failure(code) => write!(f, "error code {code}"),
            Side::Fault(code) => write!(f, "fault ({code})"),
            Side::Panic => f.write_str("panic"),
        }
    }
}

impl fmt::Display for Field {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.name, self.how.as_str())?;
        let names = |s: &[Sentence]| s.iter().map(|s| s.name()).collect::<Vec<_>>().join("+");
        match &self.sentences {
            None => Ok(()),
            Some((expected, actual)) if actual.is_empty() => {
                write!(f, " (expected {})", names(expected))
            }
            Some((expected, actual)) if expected.is_empty() => {
                write!(f, " (got {})", names(actual))
            }
            Some((expected, actual)) if expected == actual => Ok(()),
            Some((expected, actual)) => {
                write!(f, " (expected {}, got {})", names(expected), names(actual))
            }
        }
    }
}

impl fmt::Display for Difference {
    /// `/paths: items added; /total: differs`, or `error code timeout vs
    /// answer` (the subject's side first).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Difference::Sides { actual, expected } => write!(f, "{actual} vs {expected}"),
            Difference::Fields(fields) => {
                for (i, field) in fields.iter().enumerate() {
                    if i > 0 {
                        f.write_str("; ")?;
                    }
                    field.fmt(f)?;
                }
                Ok(())
            }
        }
    }
}

impl Difference {
    /// How `actual` (a subject's answer) differs from `expected` (the
    /// reference's); `None` when they agree ([`Answer::agrees`]). Two
    /// faults never agree, and differ as two sides.
    pub fn between(expected: &Answer, actual: &Answer) -> Option<Difference> {
        if expected.agrees(actual) {
            return None;
        }
        // Two failures of one code that disagree differ in a message the
        // spec fixes word for word (`contract::message_is_fixed`).
        if let (Answer::Failure { code: e, .. }, Answer::Failure { code: a, .. }) =
            (expected, actual)
            && e == a
        {
            return Some(Difference::Fields(vec![Field {
                name: "/message".into(),
                how: How::Differs,
                sentences: None,
            }]));
        }
        let (Answer::Value(expected), Answer::Value(actual)) = (expected, actual) else {
            return Some(Difference::Sides {
                actual: Side::of(actual),
                expected: Side::of(expected),
            });
        };
        if expected == actual {
            return None;
        }
        let (Value::Object(e), Value::Object(a)) = (expected, actual) else {
            return Some(Difference::Fields(vec![Field {
                name: "/".into(),
                how: how_differs(expected, actual),
                sentences: None,
            }]));
        };
        let mut fields = Vec::new();
        let mut push = |key: &str, how: How| {
            let sentences = (key == "notice").then(|| {
                let of = |v: Option<&Value>| {
                    v.and_then(Value::as_str)
                        .map_or_else(Vec::new, Sentence::all_in)
                };
                (of(e.get(key)), of(a.get(key)))
            });
            fields.push(Field {
                name: format!("/{key}"),
                how,
                sentences,
            });
        };
        for (key, ev) in e {
            match a.get(key) {
                None => push(key, How::Missing),
                Some(av) if av != ev => push(key, how_differs(ev, av)),
                Some(_) => {}
            }
        }
        for key in a.keys().filter(|k| !e.contains_key(*k)) {
            push(key, How::NotExpected);
        }
        fields.sort();
        Some(Difference::Fields(fields))
    }

    /// The fields that differ, without how: `/paths, /truncated`; or the
    /// two sides.
    pub fn fields(&self) -> String {
        match self {
            Difference::Sides { .. } => self.to_string(),
            Difference::Fields(fields) => fields
                .iter()
                .map(|f| f.name.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        }
    }

    /// Whether `self` (the difference of a smaller case) is still the bug
    /// `original` shows: what a shrunk case must keep.
    ///
    /// * Either side not an answer: the same two sides.
    /// * Two answers: at least one field that differed still differs, and
    ///   a notice differs only as it did, with the same rules behind each
    ///   side's sentences (so a missing ignore notice never becomes a
    ///   missing unsatisfiable-glob notice). Which other fields differ is
    ///   left free, and so is how a list differs: they follow from the
    ///   tree. A walk that misses a file differs in `/paths` and `/total`;
    ///   where a limit is reached, also in `/truncated` and the truncation
    ///   notice, or in `/total` and `/truncated` alone when the missed file
    ///   was past the limit. All of them shrink to the one small case,
    ///   so one bug met in many shapes is one group.
    ///
    /// ```
    /// use lawsuite::kit::answer::Answer;
    /// use lawsuite::kit::difference::Difference;
    /// use serde_json::json;
    ///
    /// let ignore = "No results; ignore files excluded paths. Retry with noIgnore: true to include them.";
    /// let missing = r#"No file under /r can match "gone/*": there is no gone directory there."#;
    /// let empty = json!({"paths": [], "total": 0, "truncated": false});
    /// let with = |notice: &str| json!({"paths": [], "total": 0, "truncated": false, "notice": notice});
    /// let between = |e: &serde_json::Value, a: &serde_json::Value| {
    ///     Difference::between(&Answer::Value(e.clone()), &Answer::Value(a.clone()))
    /// };
    /// let bug = between(&with(ignore), &empty).unwrap();
    /// let other = between(&with(missing), &empty).unwrap();
    /// assert!(bug.keeps(&bug.clone()));
    /// assert!(!other.keeps(&bug), "both lack /notice, for two rules");
    ///
    /// // Past the limit, the missed file shows in the count alone; in a
    /// // smaller tree, in the paths too: one bug.
    /// let truncated = json!({"paths": ["/r/a"], "total": 2, "truncated": true});
    /// let counted = between(&truncated, &json!({"paths": ["/r/a"], "total": 1, "truncated": false})).unwrap();
    /// let small = between(&json!({"paths": ["/r/a1"], "total": 1}), &json!({"paths": [], "total": 0})).unwrap();
    /// assert!(small.keeps(&counted));
    /// ```
    pub fn keeps(&self, original: &Difference) -> bool {
        match (self, original) {
            (Difference::Fields(now), Difference::Fields(then)) => {
                let was = |field: &Field| then.iter().find(|w| w.name == field.name);
                now.iter().any(|field| was(field).is_some())
                    && now
                        .iter()
                        .all(|field| match (&field.sentences, was(field)) {
                            (None, _) => true,
                            (Some(rules), Some(was)) => was.sentences.as_ref() == Some(rules),
                            (Some(_), None) => false,
                        })
            }
            (now, then) => now == then,
        }
    }

    /// The spec section the difference most likely pins, from the call's
    /// method, the fields that differ, the rules behind a notice and what
    /// the (shrunk) tree holds: a suggestion a drafted law starts from,
    /// never a claim.
    ///
    /// ```
    /// use lawsuite::call::Call;
    /// use lawsuite::contract::GlobInput;
    /// use lawsuite::kit::answer::Answer;
    /// use lawsuite::kit::difference::Difference;
    /// use lawsuite::kit::plan::GeneratedFile;
    /// use serde_json::json;
    ///
    /// let call = Call::Glob(GlobInput::new("*", "/r"));
    /// let (reference, peer) = (json!({"paths": []}), json!({"paths": ["/r/a.log"]}));
    /// let d = Difference::between(&Answer::Value(reference), &Answer::Value(peer)).unwrap();
    /// assert_eq!(d.section(&call, &[GeneratedFile::new("a.log", "")]), "search-contract §8");
    /// let ignored = [GeneratedFile::new(".gitignore", "*.log\n"), GeneratedFile::new("a.log", "")];
    /// assert_eq!(d.section(&call, &ignored), "search-contract §9");
    /// ```
    pub fn section(&self, call: &Call, files: &[GeneratedFile]) -> &'static str {
        let method = call.method();
        let invalid = |s: &Side| matches!(s, Side::Failure(code) if code == "invalid_pattern");
        match self {
            Difference::Sides { actual, expected } if invalid(actual) || invalid(expected) => {
                return match method {
                    Method::Glob | Method::FlowGlob => "search-contract §8",
                    _ => "search-contract §10",
                };
            }
            _ => {}
        }
        match method {
            Method::FlowRead => return "read-ls-flows §1",
            Method::FlowLs => return "read-ls-flows §2",
            Method::FlowBash => return "read-ls-flows §4",
            _ => {}
        }
        let Difference::Fields(fields) = self else {
            return "search-contract §17";
        };
        let has = |name: &str| fields.iter().any(|f| f.name == name);
        // A notice's section is its rule's: the first sentence one side
        // has and the other lacks.
        if let Some((expected, actual)) = fields.iter().find_map(|f| f.sentences.as_ref()) {
            let differing = expected
                .iter()
                .filter(|s| !actual.contains(s))
                .chain(actual.iter().filter(|s| !expected.contains(s)))
                .next();
            if let Some(sentence) = differing {
                return sentence.section();
            }
        }
        if has("/retriedAsLiteral") {
            return "search-contract §18";
        }
        if has("/truncated") && !has("/paths") && !has("/matches") {
            return "search-contract §14";
        }
        let ignore_file = files
            .iter()
            .any(|f| f.kind == FileKind::File && f.path.rsplit('/').next() == Some(".gitignore"));
        let hidden = files
            .iter()
            .any(|f| f.path.split('/').any(|part| part.starts_with('.')));
        match call {
            Call::Glob(_) | Call::FlowGlob(_) if ignore_file => "search-contract §9",
            Call::Glob(_) | Call::FlowGlob(_) if hidden => "search-contract §7",
            Call::Glob(_) | Call::FlowGlob(_) => "search-contract §8",
            _ if has("/skippedBinary") => "search-contract §11",
            _ if has("/filesSearched") && !has("/matches") => "search-contract §11",
            Call::Grep(g) if g.symbols => "search-contract §15",
            Call::Grep(g) if g.before_context > 0 || g.after_context > 0 => "search-contract §13",
            _ if ignore_file => "search-contract §9",
            _ => "search-contract §10",
        }
    }
}

impl Side {
    /// What one answer is, as a side of a difference.
    fn of(answer: &Answer) -> Side {
        match answer {
            Answer::Value(_) => Side::Answer,
            Answer::Failure { code, .. } => Side::Failure(code.as_str().to_string()),
            Answer::Fault { code, .. } => Side::Fault(code.as_str().to_string()),
            Answer::Panic(_) => Side::Panic,
        }
    }
}

/// How two unequal values of one field differ: for two lists, whether
/// items were added, lost, or only reordered (items compared whole, as
/// multisets); else [`How::Differs`].
fn how_differs(expected: &Value, actual: &Value) -> How {
    let (Value::Array(e), Value::Array(a)) = (expected, actual) else {
        return How::Differs;
    };
    // Items counted by their JSON text: `Value` has no `Hash`, and one pass
    // over each list keeps a huge wrong answer linear.
    let mut count: std::collections::HashMap<String, i64> = std::collections::HashMap::new();
    for item in e {
        *count.entry(item.to_string()).or_default() += 1;
    }
    for item in a {
        *count.entry(item.to_string()).or_default() -= 1;
    }
    let lost = count.values().any(|n| *n > 0);
    let added = count.values().any(|n| *n < 0);
    match (added, lost) {
        (true, true) => How::ItemsAddedAndLost,
        (true, false) => How::ItemsAdded,
        (false, true) => How::ItemsLost,
        (false, false) => How::OrderDiffers,
    }
}

/// The kind of a difference between a subject's answer (`actual`) and the
/// reference's (`expected`), as a sentence ([`Difference`]'s `Display`):
/// what a report groups divergences by. `None` when the answers agree.
///
/// A failure or a panic on either side is the kind (`error code timeout vs
/// answer`: the subject failed where the reference answered). Between two
/// answers it is every top-level field that differs and how, sorted:
/// `missing` or `not expected` for a field one side lacks, and for a list
/// whether it gained items, lost items, or holds the same items in
/// another order, so the kind does not depend on where in the list a wrong
/// item lands, nor on how many others the tree adds around it. A peer that
/// lists an ignored file is `/paths: items added` in a tree of 3 files and
/// of 300; a peer that drops a notice is `/notice: missing`, another bug.
///
/// ```
/// use lawsuite::kit::answer::Answer;
/// use lawsuite::kit::difference::difference_kind;
/// use serde_json::json;
///
/// let wire = |v| Answer::from_wire(&v).unwrap();
/// let answer = wire(json!({"paths": ["a", "b"], "truncated": false}));
/// let kind = |actual| difference_kind(&answer, &wire(actual));
/// assert_eq!(kind(json!({"paths": ["a"], "truncated": false})).unwrap(), "/paths: items lost");
/// assert_eq!(kind(json!({"paths": ["i", "a", "b"], "truncated": false})).unwrap(), "/paths: items added");
/// assert_eq!(kind(json!({"paths": ["b", "a"], "truncated": false})).unwrap(), "/paths: order differs");
/// assert_eq!(
///     kind(json!({"paths": ["a", "x"], "truncated": true})).unwrap(),
///     "/paths: items added, items lost; /truncated: differs",
/// );
/// assert_eq!(kind(json!({"failure": "timeout"})).unwrap(), "error code timeout vs answer");
/// assert_eq!(difference_kind(&wire(json!({"failure": "not_found"})), &answer).unwrap(), "answer vs error code not_found");
/// assert_eq!(kind(json!({"paths": ["a", "b"], "truncated": false})), None);
/// ```
pub fn difference_kind(expected: &Answer, actual: &Answer) -> Option<String> {
    Difference::between(expected, actual).map(|d| d.to_string())
}

/// Where two answers differ, without how ([`Difference::fields`]): the
/// fields that differ, sorted, or the two sides as in [`difference_kind`].
///
/// ```
/// use lawsuite::kit::answer::Answer;
/// use lawsuite::kit::difference::difference_fields;
/// use serde_json::json;
///
/// let wire = |v| Answer::from_wire(&v).unwrap();
/// let answer = wire(json!({"paths": ["a", "b"], "truncated": false}));
/// let fields = |actual| difference_fields(&answer, &wire(actual));
/// assert_eq!(fields(json!({"paths": ["a", "x"], "truncated": false})).unwrap(), "/paths");
/// assert_eq!(fields(json!({"paths": ["x"], "truncated": true})).unwrap(), "/paths, /truncated");
/// assert_eq!(fields(json!({"failure": "timeout"})).unwrap(), "error code timeout vs answer");
/// ```
pub fn difference_fields(expected: &Answer, actual: &Answer) -> Option<String> {
    Difference::between(expected, actual).map(|d| d.fields())
}

/// One step of a JSON pointer.
#[derive(Clone, Copy)]
enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

/// What differs where two answers first differ.
enum What<'a> {
    /// A key of the expected answer the actual one lacks.
    Missing,
    /// A key of the actual answer the expected one lacks.
    NotExpected,
    /// Arrays equal as far as both go, of different lengths.
    Count { expected: usize, actual: usize },
    /// Two different values of which neither holds the other.
    Value {
        expected: &'a Value,
        actual: &'a Value,
    },
}

/// Where `actual` first differs from `expected`: the path to it (in `at`)
/// and what differs there; `None` when they are equal. Keys in the
/// expected answer's order, then the keys only the actual one has.
fn walk<'a>(expected: &'a Value, actual: &'a Value, at: &mut Vec<Step<'a>>) -> Option<What<'a>> {
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => {
            for (key, ev) in e {
                at.push(Step::Key(key));
                let Some(av) = a.get(key) else {
                    return Some(What::Missing);
                };
                if let Some(what) = walk(ev, av, at) {
                    return Some(what);
                }
                at.pop();
            }
            let extra = a.keys().find(|k| !e.contains_key(*k))?;
            at.push(Step::Key(extra));
            Some(What::NotExpected)
        }
        (Value::Array(e), Value::Array(a)) => {
            for (i, (ev, av)) in e.iter().zip(a).enumerate() {
                at.push(Step::Index(i));
                if let Some(what) = walk(ev, av, at) {
                    return Some(what);
                }
                at.pop();
            }
            (e.len() != a.len()).then_some(What::Count {
                expected: e.len(),
                actual: a.len(),
            })
        }
        _ if expected == actual => None,
        _ => Some(What::Value { expected, actual }),
    }
}

/// `at` as a JSON pointer after `prefix`, `/` for the whole value.
fn pointer(prefix: &str, at: &[Step<'_>]) -> String {
    let mut out = prefix.to_string();
    for step in at {
        out.push('/');
        match step {
            Step::Key(key) => out.push_str(key),
            Step::Index(i) => out.push_str(&i.to_string()),
        }
    }
    if out.is_empty() {
        out.push('/');
    }
    out
}

/// Where `actual` first differs from `expected`, as a JSON pointer (after
/// `at`) and the two values (shortened), or `None` when they are equal.
///
/// ```
/// use lawsuite::kit::compare::first_difference;
/// use serde_json::json;
///
/// let a = json!({"matches": [{"line": 3}], "truncated": false});
/// let b = json!({"truncated": false, "matches": [{"line": 4}]});
/// assert_eq!(first_difference(&a, &a, ""), None);
/// assert_eq!(first_difference(&a, &b, "").unwrap(), "/matches/0/line: 4, expected 3");
/// ```
pub fn first_difference(expected: &Value, actual: &Value, at: &str) -> Option<String> {
    let mut steps = Vec::new();
    let what = walk(expected, actual, &mut steps)?;
    let here = pointer(at, &steps);
    Some(match what {
        What::Missing => format!("{here}: missing"),
        What::NotExpected => format!("{here}: not expected"),
        What::Count { expected, actual } => format!("{here}: {actual} items, expected {expected}"),
        What::Value { expected, actual } => {
            format!(
                "{here}: {}, expected {}",
                shorten(actual),
                shorten(expected)
            )
        }
    })
}

/// `value` as compact JSON, cut after 80 characters.
pub(crate) fn shorten(value: &Value) -> String {
    const MAX: usize = 80;
    let text = value.to_string();
    match text.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// An answer in its wire form.
    fn w(value: Value) -> Answer {
        Answer::from_wire(&value).unwrap()
    }

    #[test]
    fn a_fixed_message_that_differs_is_a_message_field() {
        use crate::contract::StdError;
        let hinted = Answer::from_result(Err(StdError::file_not_found(
            "b",
            ". The working directory holds: a.",
        )));
        let bare = Answer::from_result(Err(StdError::file_not_found("b", "")));
        let d = Difference::between(&hinted, &bare).unwrap();
        assert_eq!(d.to_string(), "/message: differs");
        // A message the spec leaves free is no difference.
        let denied = std::io::Error::from(std::io::ErrorKind::PermissionDenied);
        let other = Answer::from_result(Err(StdError::cannot_search("/x", &denied)));
        let again = Answer::from_result(Err(StdError::cannot_search("/y", &denied)));
        assert_eq!(Difference::between(&other, &again), None);
    }

    #[test]
    fn differences_name_the_first_path() {
        let e = json!({"a": [1, 2], "b": "x"});
        assert_eq!(
            first_difference(&e, &json!({"a": [1, 2, 3], "b": "x"}), "").unwrap(),
            "/a: 3 items, expected 2"
        );
        assert_eq!(
            first_difference(&e, &json!({"a": [1, 2]}), "").unwrap(),
            "/b: missing"
        );
        assert_eq!(
            first_difference(&e, &json!({"a": [1, 2], "b": "x", "c": 1}), "").unwrap(),
            "/c: not expected"
        );
        assert_eq!(
            first_difference(&json!({"failure": "timeout"}), &json!([]), "").unwrap(),
            "/: [], expected {\"failure\":\"timeout\"}"
        );
        assert_eq!(
            first_difference(&json!({"a": {"b": 1}}), &json!({"a": {"b": 2}}), "/x").unwrap(),
            "/x/a/b: 2, expected 1"
        );
        let long = json!("x".repeat(200));
        assert!(
            first_difference(&json!(1), &long, "")
                .unwrap()
                .ends_with("…, expected 1")
        );
    }

    #[test]
    fn kinds_of_difference() {
        let answer = json!({"matches": [{"line": 1}, {"line": 2}], "notice": "n"});
        let kind = |actual: Value| difference_kind(&w(answer.clone()), &w(actual)).unwrap();
        assert_eq!(
            kind(json!({"matches": [{"line": 1}, {"line": 3}], "notice": "n"})),
            "/matches: items added, items lost"
        );
        assert_eq!(
            kind(json!({"matches": [{"line": 1}]})),
            "/matches: items lost; /notice: missing (expected other)"
        );
        assert_eq!(
            kind(json!({"matches": [{"line": 1}, {"line": 2}]})),
            "/notice: missing (expected other)"
        );
        assert_eq!(
            kind(json!({"matches": [{"line": 1}, {"line": 2}], "notice": "n", "x": 1})),
            "/x: not expected"
        );
        // Where the extra item lands, and how many others there are, is
        // not the kind: the same bug in a bigger tree is the same kind.
        let extra_first =
            json!({"matches": [{"line": 9}, {"line": 1}, {"line": 2}], "notice": "n"});
        let small = json!({"matches": [], "notice": "n"});
        assert_eq!(kind(extra_first), "/matches: items added");
        assert_eq!(
            difference_kind(
                &w(small),
                &w(json!({"matches": [{"line": 9}], "notice": "n"}))
            )
            .unwrap(),
            "/matches: items added"
        );
        // A repeated item is an added one.
        assert_eq!(
            kind(json!({"matches": [{"line": 1}, {"line": 1}, {"line": 2}], "notice": "n"})),
            "/matches: items added"
        );
        assert_eq!(kind(json!({"panic": "boom"})), "panic vs answer");
        assert_eq!(
            kind(json!({"failure": "request_failed", "fault": "peer mine exited"})),
            "fault (request_failed) vs answer"
        );
        assert_eq!(
            difference_kind(
                &w(json!({"failure": "timeout"})),
                &w(json!({"failure": "not_found"}))
            )
            .unwrap(),
            "error code not_found vs error code timeout"
        );
        assert_eq!(
            difference_kind(&w(json!(1)), &w(json!(2))).unwrap(),
            "/: differs"
        );
    }

    fn between(e: &Value, a: &Value) -> Option<Difference> {
        Difference::between(&w(e.clone()), &w(a.clone()))
    }

    /// The shrinker keeps the rule behind a notice: the ignore notice
    /// missing and an unsatisfiable-glob notice missing are two bugs; a
    /// list that gains items in one tree and also loses some in another is
    /// one, and so is the same seen in fewer fields.
    #[test]
    fn a_smaller_case_keeps_some_of_the_fields_and_their_notice_rules() {
        let ignore = crate::contract::notice::IGNORE_NOTICE;
        let base = json!({"paths": ["/r/a"], "total": 1, "truncated": false});
        let with_notice = |notice: &str| {
            let mut v = json!({"paths": [], "total": 0, "truncated": false});
            v["notice"] = json!(notice);
            v
        };
        let empty = json!({"paths": [], "total": 0, "truncated": false});
        let a = between(&with_notice(ignore), &empty).unwrap();
        let b = between(&with_notice(r#"No file under /r can match ".x/*": hidden paths are excluded unless hidden is true."#),
            &empty,
        )
        .unwrap();
        assert!(!a.keeps(&b) && !b.keeps(&a));
        assert_eq!(a.to_string(), "/notice: missing (expected ignore)");
        assert_eq!(b.to_string(), "/notice: missing (expected hidden)");
        let added = between(
            &base,
            &json!({"paths": ["/r/a", "/r/x"], "total": 1, "truncated": false}),
        )
        .unwrap();
        let both = between(
            &base,
            &json!({"paths": ["/r/x"], "total": 1, "truncated": false}),
        )
        .unwrap();
        assert!(added.keeps(&both) && both.keeps(&added) && added != both);
        let code = between(&base, &json!({"failure": "timeout"})).unwrap();
        assert!(!code.keeps(&added) && !added.keeps(&code));
        // Fewer fields of the same, or more beside one of them: kept; no
        // field of the original's: not.
        let more = between(
            &base,
            &json!({"paths": ["/r/x"], "total": 2, "truncated": false}),
        )
        .unwrap();
        assert!(added.keeps(&more) && more.keeps(&added));
        let elsewhere = between(
            &base,
            &json!({"paths": ["/r/a"], "total": 3, "truncated": false}),
        )
        .unwrap();
        assert!(!elsewhere.keeps(&added));
        // A notice that was not in the original's difference may not
        // appear.
        let noticed = between(
            &with_notice(ignore),
            &json!({"paths": [], "total": 0, "truncated": false, "notice": "other"}),
        )
        .unwrap();
        let was = between(
            &with_notice(ignore),
            &json!({"paths": ["/r/z"], "total": 0, "truncated": false, "notice": ignore}),
        )
        .unwrap();
        assert!(!noticed.keeps(&was));
    }
}
