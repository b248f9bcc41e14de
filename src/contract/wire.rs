//! Wire types: the JSON shapes of search-contract §2, §4, §5 and §6.
//!
//! Field declaration order *is* the JSON key order (serde serialises in
//! declaration order), and the spec fixes that order because the TypeScript
//! kit compares answers as byte strings (conformance-kit §4). Optional keys
//! are omitted, never written as `null`.
//!
//! * [`GrepRequest`] / [`GlobRequest`]: what a caller hands the flow layer
//!   (every field but `pattern` optional).
//! * [`GrepInput`] / [`GlobInput`]: the normalised values a peer receives
//!   (every field resolved; built by [`crate::contract::normalize_grep`] and
//!   [`crate::contract::normalize_glob`]).
//! * [`GrepOutput`], [`Match`], [`ContextLine`], [`Symbol`], [`GlobOutput`]:
//!   a peer's answers; [`GrepFlowOutput`] adds `retriedAsLiteral` (§6.2).

use serde::{Deserialize, Serialize};

/// A `grep` call as a caller writes it (§2). Unknown keys are refused.
///
/// ```
/// use lawsuite::contract::GrepRequest;
/// let req: GrepRequest = serde_json::from_str(r#"{"pattern":"needle","context":2}"#)?;
/// assert_eq!(req.context, Some(2));
/// assert_eq!(serde_json::to_string(&req)?, r#"{"pattern":"needle","context":2}"#);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[allow(missing_docs)] // fields are documented by §2's table; names are the wire names
pub struct GrepRequest {
    pub pattern: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fixed_strings: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ignore_case: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub smart_case: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub globs: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before_context: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after_context: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<u64>,
    /// The schema asks for ≥ 1, but `0` is representable so that §3 check 3
    /// (`--max-count must be at least 1`) is reachable, as in the kit's case
    /// conformance-kit §7.5 #26.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_count: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub files_with_matches: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hidden: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub symbols: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_ignore: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u64>,
}

impl GrepRequest {
    /// A request for `pattern` with every option left to its default.
    pub fn new(pattern: impl Into<String>) -> GrepRequest {
        GrepRequest {
            pattern: pattern.into(),
            ..GrepRequest::default()
        }
    }
}

/// The normalised `grep` input a peer receives (§4). Every field is
/// resolved; key order is the flow layer's.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[allow(missing_docs)] // fields are documented by §4's table; names are the wire names
pub struct GrepInput {
    pub pattern: String,
    pub root: String,
    pub fixed_strings: bool,
    pub ignore_case: bool,
    pub smart_case: bool,
    pub globs: Vec<String>,
    pub before_context: u64,
    pub after_context: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_count: Option<u64>,
    pub files_with_matches: bool,
    pub hidden: bool,
    #[serde(default)]
    pub no_ignore: bool,
    pub symbols: bool,
    pub limit: u64,
}

impl GrepInput {
    /// The input `Grep.run({pattern})` would hand a peer: every default of §4.
    ///
    /// ```
    /// use lawsuite::contract::GrepInput;
    /// let input = GrepInput::new("needle", ".");
    /// assert_eq!(
    ///     serde_json::to_string(&input)?,
    ///     r#"{"pattern":"needle","root":".","fixedStrings":false,"ignoreCase":false,"smartCase":false,"globs":[],"beforeContext":0,"afterContext":0,"filesWithMatches":false,"hidden":false,"noIgnore":false,"symbols":true,"limit":200}"#,
    /// );
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(pattern: impl Into<String>, root: impl Into<String>) -> GrepInput {
        GrepInput {
            pattern: pattern.into(),
            root: root.into(),
            fixed_strings: false,
            ignore_case: false,
            smart_case: false,
            globs: Vec::new(),
            before_context: 0,
            after_context: 0,
            max_count: None,
            files_with_matches: false,
            hidden: false,
            no_ignore: false,
            symbols: true,
            limit: crate::contract::MAX_GREP_MATCHES,
        }
    }
}

/// A `glob` call as a caller writes it (§5).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[allow(missing_docs)] // fields are documented by §5's table; names are the wire names
pub struct GlobRequest {
    pub pattern: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hidden: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_ignore: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u64>,
}

impl GlobRequest {
    /// A request for `pattern` with every option left to its default.
    pub fn new(pattern: impl Into<String>) -> GlobRequest {
        GlobRequest {
            pattern: pattern.into(),
            ..GlobRequest::default()
        }
    }
}

/// The normalised `glob` input a peer receives (§5), key order
/// `pattern, root, hidden, noIgnore, limit`.
///
/// ```
/// use lawsuite::contract::GlobInput;
/// let input = GlobInput::new("**/*.ts", "/r");
/// assert_eq!(
///     serde_json::to_string(&input)?,
///     r#"{"pattern":"**/*.ts","root":"/r","hidden":false,"noIgnore":false,"limit":1000}"#,
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[allow(missing_docs)] // fields are documented by §5's table; names are the wire names
pub struct GlobInput {
    pub pattern: String,
    pub root: String,
    pub hidden: bool,
    #[serde(default)]
    pub no_ignore: bool,
    pub limit: u64,
}

impl GlobInput {
    /// The input `Glob.run({pattern, root})` would hand a peer.
    pub fn new(pattern: impl Into<String>, root: impl Into<String>) -> GlobInput {
        GlobInput {
            pattern: pattern.into(),
            root: root.into(),
            hidden: false,
            no_ignore: false,
            limit: crate::contract::MAX_ENTRIES,
        }
    }
}

/// One context row: `{line, text}` (§6.1).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContextLine {
    /// 1-based line number.
    pub line: u64,
    /// The preview of the line (§11.4).
    pub text: String,
}

/// The enclosing definition of a hit (§15), `{kind, name, startLine, endLine}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Symbol {
    /// The declaration keyword, e.g. `def`, `fn`, `class`.
    pub kind: String,
    /// The declared name.
    pub name: String,
    /// 1-based first line of the definition.
    pub start_line: u64,
    /// 1-based last line of the definition.
    pub end_line: u64,
}

/// One hit with its owned context (§6.1, §13.1), key order
/// `file, line, text, before, after, symbol?`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Match {
    /// The output path (§6.4).
    pub file: String,
    /// 1-based line number of the hit.
    pub line: u64,
    /// The preview of the hit line (§11.4).
    pub text: String,
    /// Context rows above the hit that it owns, ascending.
    pub before: Vec<ContextLine>,
    /// Context rows below the hit that it owns, ascending.
    pub after: Vec<ContextLine>,
    /// The enclosing definition, when `symbols` is on and one was found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub symbol: Option<Symbol>,
}

/// A peer's `grep` answer (§6.1).
///
/// ```
/// use lawsuite::contract::GrepOutput;
/// let out: GrepOutput = serde_json::from_str(
///     r#"{"matches":[],"files":[],"filesSearched":3,"skippedBinary":0,"truncated":false}"#,
/// )?;
/// assert_eq!(out.files_searched, 3);
/// assert!(out.notice.is_none());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GrepOutput {
    /// Hits in file order then line order; empty under `filesWithMatches`.
    pub matches: Vec<Match>,
    /// Matching files; empty unless `filesWithMatches`.
    pub files: Vec<String>,
    /// Candidate files, including binary and unreadable ones (§11.6).
    pub files_searched: u64,
    /// Candidate files holding a NUL byte (§11.1).
    pub skipped_binary: u64,
    /// `total > limit` (§14).
    pub truncated: bool,
    /// Truncation notice, or unsatisfiable/ignore notice (§14, §16).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notice: Option<String>,
}

impl GrepOutput {
    /// "Empty" in the sense of §18: no matches and no files.
    pub fn is_empty(&self) -> bool {
        self.matches.is_empty() && self.files.is_empty()
    }
}

/// The `grep` flow's answer (§6.2): a peer answer plus `retriedAsLiteral`,
/// in schema order `matches, files, filesSearched, skippedBinary,
/// truncated, retriedAsLiteral?, notice?` (README Q4: schema order chosen).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[allow(missing_docs)] // same fields as GrepOutput
pub struct GrepFlowOutput {
    pub matches: Vec<Match>,
    pub files: Vec<String>,
    pub files_searched: u64,
    pub skipped_binary: u64,
    pub truncated: bool,
    /// Present (and `true`) only for a literal-retry answer (§18).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retried_as_literal: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notice: Option<String>,
}

/// The caller's request that asks for exactly `input`: every field
/// spelled out, so normalising it gives `input` back when `input` is one
/// validation can hand a peer.
impl From<&GrepInput> for GrepRequest {
    fn from(input: &GrepInput) -> GrepRequest {
        GrepRequest {
            pattern: input.pattern.clone(),
            root: Some(input.root.clone()),
            fixed_strings: Some(input.fixed_strings),
            ignore_case: Some(input.ignore_case),
            smart_case: Some(input.smart_case),
            globs: Some(input.globs.clone()),
            before_context: Some(input.before_context),
            after_context: Some(input.after_context),
            context: None,
            max_count: input.max_count,
            files_with_matches: Some(input.files_with_matches),
            hidden: Some(input.hidden),
            symbols: Some(input.symbols),
            no_ignore: Some(input.no_ignore),
            limit: Some(input.limit),
        }
    }
}

/// As for grep: the request that asks for exactly `input`.
impl From<&GlobInput> for GlobRequest {
    fn from(input: &GlobInput) -> GlobRequest {
        GlobRequest {
            pattern: input.pattern.clone(),
            root: Some(input.root.clone()),
            hidden: Some(input.hidden),
            no_ignore: Some(input.no_ignore),
            limit: Some(input.limit),
        }
    }
}

impl From<GrepOutput> for GrepFlowOutput {
    fn from(out: GrepOutput) -> GrepFlowOutput {
        GrepFlowOutput {
            matches: out.matches,
            files: out.files,
            files_searched: out.files_searched,
            skipped_binary: out.skipped_binary,
            truncated: out.truncated,
            retried_as_literal: None,
            notice: out.notice,
        }
    }
}

/// A peer's `glob` answer (§6.3), key order `paths, total, truncated, notice?`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GlobOutput {
    /// Matching paths in UTF-16 order, at most `limit`.
    pub paths: Vec<String>,
    /// Matching paths before the limit.
    pub total: u64,
    /// `total > limit`.
    pub truncated: bool,
    /// Truncation notice, or unsatisfiable/ignore notice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notice: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Round trip through JSON text: parse, re-serialise, compare bytes.
    fn round_trip<T: Serialize + serde::de::DeserializeOwned>(json: &str) {
        let value: T = serde_json::from_str(json).unwrap();
        assert_eq!(serde_json::to_string(&value).unwrap(), json);
    }

    #[test]
    fn kit_vector_grep_inputs_round_trip() {
        // conformance-kit §2.4, first grep calls of seed 1.
        round_trip::<GrepInput>(
            r#"{"pattern":"needle?","root":"/r/other/frames","fixedStrings":true,"ignoreCase":true,"smartCase":false,"globs":["*.txt"],"beforeContext":0,"afterContext":0,"filesWithMatches":false,"hidden":true,"noIgnore":true,"symbols":false,"limit":13}"#,
        );
        round_trip::<GrepInput>(
            r#"{"pattern":"a+b","root":"/r","fixedStrings":false,"ignoreCase":false,"smartCase":false,"globs":["!*.js"],"beforeContext":2,"afterContext":2,"maxCount":1,"filesWithMatches":false,"hidden":false,"noIgnore":true,"symbols":false,"limit":18}"#,
        );
        round_trip::<GlobInput>(
            r#"{"pattern":"**/*.ts","root":"/r","hidden":false,"noIgnore":false,"limit":5}"#,
        );
    }

    #[test]
    fn outputs_round_trip_with_spec_key_order() {
        round_trip::<GrepOutput>(
            r#"{"matches":[{"file":"src/a.ts","line":2,"text":"Needle one","before":[{"line":1,"text":"intro"}],"after":[{"line":3,"text":"context after"}]}],"files":[],"filesSearched":2,"skippedBinary":0,"truncated":false}"#,
        );
        round_trip::<GrepOutput>(
            r#"{"matches":[{"file":"/src/mod.py","line":3,"text":"        return value","before":[],"after":[],"symbol":{"kind":"def","name":"widen","startLine":2,"endLine":3}}],"files":[],"filesSearched":1,"skippedBinary":0,"truncated":false}"#,
        );
        round_trip::<GrepOutput>(
            r#"{"matches":[],"files":[],"filesSearched":3,"skippedBinary":0,"truncated":true,"notice":"Showing 0 of 3 matches; output was truncated."}"#,
        );
        round_trip::<GrepFlowOutput>(
            r#"{"matches":[],"files":["a"],"filesSearched":1,"skippedBinary":0,"truncated":false,"retriedAsLiteral":true,"notice":"n"}"#,
        );
        round_trip::<GlobOutput>(r#"{"paths":[],"total":0,"truncated":false}"#);
        round_trip::<GlobOutput>(
            r#"{"paths":[],"total":5,"truncated":true,"notice":"Showing 0 of 5 entries; output was truncated."}"#,
        );
    }

    #[test]
    fn unknown_request_fields_are_refused() {
        // §2: there is no `types` field in rc.4.
        let err =
            serde_json::from_str::<GrepRequest>(r#"{"pattern":"a","types":["rust"]}"#).unwrap_err();
        assert!(err.to_string().contains("unknown field `types`"), "{err}");
        let req: GrepRequest = serde_json::from_str(r#"{"pattern":"a","noIgnore":false}"#).unwrap();
        assert_eq!(req.no_ignore, Some(false));
    }

    #[test]
    fn negative_limit_is_a_schema_error() {
        assert!(serde_json::from_str::<GrepRequest>(r#"{"pattern":"a","limit":-1}"#).is_err());
        assert!(serde_json::from_str::<GrepRequest>(r#"{"pattern":"a","limit":1.5}"#).is_err());
    }
}
