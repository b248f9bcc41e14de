//! Typed failures of the contract: `StdError` and its closed code list
//! (search-contract §17).
//!
//! A peer fails only with a [`StdError`]. The conformance kit compares the
//! [`ErrorCode`] alone (conformance-kit §4), but the messages are still part
//! of the contract: every constructor here writes the exact wire string the
//! spec gives, so no other module ever formats an error message by hand.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The closed list of failure codes, in the spec's source order (§17).
///
/// Serialised as the snake_case string, e.g. `"invalid_pattern"`.
///
/// ```
/// use lawsuite::contract::ErrorCode;
/// assert_eq!(ErrorCode::InvalidPattern.as_str(), "invalid_pattern");
/// assert_eq!(serde_json::to_string(&ErrorCode::NotFound)?, r#""not_found""#);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[allow(missing_docs)] // each variant is its wire string; §17 is the documentation
pub enum ErrorCode {
    StaleRead,
    NotFound,
    NotADirectory,
    NotAFile,
    IsDirectory,
    BinaryFile,
    OffsetOutOfRange,
    InvalidPattern,
    InvalidInput,
    NoMatch,
    NotModified,
    PermissionDenied,
    OutsideDeclaredReads,
    OutsideDeclaredWrites,
    CommandFailed,
    RequestFailed,
    Timeout,
    RateLimited,
    ProviderUnavailable,
    Unsupported,
    UnsupportedContentType,
    ResponseTooLarge,
    OutsideContainer,
}

impl ErrorCode {
    /// Every code, in the spec's order.
    pub const ALL: [ErrorCode; 23] = [
        ErrorCode::StaleRead,
        ErrorCode::NotFound,
        ErrorCode::NotADirectory,
        ErrorCode::NotAFile,
        ErrorCode::IsDirectory,
        ErrorCode::BinaryFile,
        ErrorCode::OffsetOutOfRange,
        ErrorCode::InvalidPattern,
        ErrorCode::InvalidInput,
        ErrorCode::NoMatch,
        ErrorCode::NotModified,
        ErrorCode::PermissionDenied,
        ErrorCode::OutsideDeclaredReads,
        ErrorCode::OutsideDeclaredWrites,
        ErrorCode::CommandFailed,
        ErrorCode::RequestFailed,
        ErrorCode::Timeout,
        ErrorCode::RateLimited,
        ErrorCode::ProviderUnavailable,
        ErrorCode::Unsupported,
        ErrorCode::UnsupportedContentType,
        ErrorCode::ResponseTooLarge,
        ErrorCode::OutsideContainer,
    ];

    /// The wire spelling of this code.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::StaleRead => "stale_read",
            ErrorCode::NotFound => "not_found",
            ErrorCode::NotADirectory => "not_a_directory",
            ErrorCode::NotAFile => "not_a_file",
            ErrorCode::IsDirectory => "is_directory",
            ErrorCode::BinaryFile => "binary_file",
            ErrorCode::OffsetOutOfRange => "offset_out_of_range",
            ErrorCode::InvalidPattern => "invalid_pattern",
            ErrorCode::InvalidInput => "invalid_input",
            ErrorCode::NoMatch => "no_match",
            ErrorCode::NotModified => "not_modified",
            ErrorCode::PermissionDenied => "permission_denied",
            ErrorCode::OutsideDeclaredReads => "outside_declared_reads",
            ErrorCode::OutsideDeclaredWrites => "outside_declared_writes",
            ErrorCode::CommandFailed => "command_failed",
            ErrorCode::RequestFailed => "request_failed",
            ErrorCode::Timeout => "timeout",
            ErrorCode::RateLimited => "rate_limited",
            ErrorCode::ProviderUnavailable => "provider_unavailable",
            ErrorCode::Unsupported => "unsupported",
            ErrorCode::UnsupportedContentType => "unsupported_content_type",
            ErrorCode::ResponseTooLarge => "response_too_large",
            ErrorCode::OutsideContainer => "outside_container",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The contract's failure value: a code, an exact message and, for
/// filesystem failures, the path as the caller gave it.
///
/// `Display` is the message alone, so an error printed to a person reads as
/// the sentence the spec prescribes.
///
/// ```
/// use lawsuite::contract::{ErrorCode, StdError};
/// let err = StdError::invalid_pattern("foo(bar", "\"(\" at column 4 is never closed; write \\( for a literal parenthesis");
/// assert_eq!(err.code, ErrorCode::InvalidPattern);
/// assert_eq!(
///     err.to_string(),
///     r#"Unsupported ripgrep pattern "foo(bar": "(" at column 4 is never closed; write \( for a literal parenthesis"#,
/// );
/// assert!(err.is_contract_rejection());
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StdError {
    /// One code of the closed list.
    pub code: ErrorCode,
    /// The exact message of §17.
    pub message: String,
    /// The path as given by the caller, for filesystem failures.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Made by the harness for a peer that did not answer ([`StdError::fault`]);
    /// never on the wire.
    #[serde(skip)]
    fault: bool,
}

/// The prefix that marks a message written by this contract (§17
/// `isContractRejection`).
const PATTERN_PREFIX: &str = "Unsupported ripgrep pattern \"";

impl StdError {
    /// An error with a code and message and no path.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> StdError {
        StdError {
            code,
            message: message.into(),
            path: None,
            fault: false,
        }
    }

    /// A failure the harness made for a peer that did not answer the call:
    /// it crashed, timed out, broke the protocol, answered past the call's
    /// bounds or could not be asked. The code is what the call answers
    /// (§17 has no code of its own for "no answer"), but it is no answer
    /// of the peer's: the conformance kit never counts two of them as
    /// agreeing, nor one as the reference's answer.
    ///
    /// ```
    /// use lawsuite::contract::{ErrorCode, StdError};
    ///
    /// let fault = StdError::fault(ErrorCode::RequestFailed, "peer mine exited");
    /// assert!(fault.is_fault());
    /// assert!(!StdError::new(ErrorCode::RequestFailed, "rg: error").is_fault());
    /// ```
    pub fn fault(code: ErrorCode, message: impl Into<String>) -> StdError {
        StdError {
            fault: true,
            ..StdError::new(code, message)
        }
    }

    /// Whether the harness made this failure ([`StdError::fault`]).
    pub fn is_fault(&self) -> bool {
        self.fault
    }

    /// The same error carrying `path`.
    pub fn with_path(mut self, path: impl Into<String>) -> StdError {
        self.path = Some(path.into());
        self
    }

    /// `invalid_pattern`: «`Unsupported ripgrep pattern "{pattern}": {detail}`».
    pub fn invalid_pattern(pattern: &str, detail: &str) -> StdError {
        StdError::new(
            ErrorCode::InvalidPattern,
            format!("{PATTERN_PREFIX}{pattern}\": {detail}"),
        )
    }

    /// `invalid_input`: «`Invalid ripgrep options: {detail}`».
    pub fn invalid_options(detail: &str) -> StdError {
        StdError::new(
            ErrorCode::InvalidInput,
            format!("Invalid ripgrep options: {detail}"),
        )
    }

    /// `not_found` for a search root: «`Path not found: {root}`».
    pub fn root_not_found(root: &str) -> StdError {
        StdError::new(ErrorCode::NotFound, format!("Path not found: {root}")).with_path(root)
    }

    /// A root that could not be searched (§7.1): `permission_denied` when the
    /// host said so, `command_failed` otherwise, with the host's message.
    pub fn cannot_search(root: &str, err: &std::io::Error) -> StdError {
        let code = match err.kind() {
            std::io::ErrorKind::NotFound => return StdError::root_not_found(root),
            std::io::ErrorKind::PermissionDenied => ErrorCode::PermissionDenied,
            _ => ErrorCode::CommandFailed,
        };
        StdError::new(code, format!("Cannot search {root}: {}", host_message(err))).with_path(root)
    }

    /// `binary_file` for an explicit-file root: «`Cannot search binary file: {path}`».
    pub fn binary_root(path: &str) -> StdError {
        StdError::new(
            ErrorCode::BinaryFile,
            format!("Cannot search binary file: {path}"),
        )
        .with_path(path)
    }

    /// `provider_unavailable` from the no-op peer (§1).
    pub fn no_search_configured() -> StdError {
        StdError::new(
            ErrorCode::ProviderUnavailable,
            "No search implementation is configured",
        )
    }

    /// The read-side mapping of read-ls-flows (shared by `read` and `ls`):
    /// `PermissionDenied` → `permission_denied` «`Permission denied: {path}`»,
    /// `NotFound` → `not_found` with the flow's `not_found_message`, anything
    /// else → `command_failed` «`Could not read {path}: {host error message}`».
    /// Every failure carries `path` as the caller gave it.
    ///
    /// ```
    /// use std::io::{Error, ErrorKind};
    /// use lawsuite::contract::{ErrorCode, StdError};
    /// let denied = Error::from(ErrorKind::PermissionDenied);
    /// let err = StdError::read_side("secret", &denied, "File not found: secret");
    /// assert_eq!((err.code, err.message.as_str()), (ErrorCode::PermissionDenied, "Permission denied: secret"));
    /// assert_eq!(err.path.as_deref(), Some("secret"));
    /// ```
    pub fn read_side(path: &str, err: &std::io::Error, not_found_message: &str) -> StdError {
        let (code, message) = match err.kind() {
            std::io::ErrorKind::PermissionDenied => (
                ErrorCode::PermissionDenied,
                format!("Permission denied: {path}"),
            ),
            std::io::ErrorKind::NotFound => (ErrorCode::NotFound, not_found_message.to_string()),
            _ => (
                ErrorCode::CommandFailed,
                format!("Could not read {path}: {}", host_message(err)),
            ),
        };
        StdError::new(code, message).with_path(path)
    }

    /// `not_found` for `read`: «`File not found: {path}{hint}`», where `hint`
    /// is empty or the read-ls §1.6 sentence (starting with `. `).
    pub fn file_not_found(path: &str, hint: &str) -> StdError {
        StdError::new(ErrorCode::NotFound, format!("File not found: {path}{hint}")).with_path(path)
    }

    /// `is_directory` for `read`: «`Cannot read a directory: {path}`».
    pub fn is_directory(path: &str) -> StdError {
        StdError::new(
            ErrorCode::IsDirectory,
            format!("Cannot read a directory: {path}"),
        )
        .with_path(path)
    }

    /// `response_too_large` for `read` (read-ls §1.3 step 4).
    ///
    /// ```
    /// let err = lawsuite::contract::StdError::file_too_large("big.log", 100_000_000, 67_108_864);
    /// assert_eq!(err.message, "big.log is 100000000 bytes, over the 67108864-byte read limit; search it with grep or print a line range with bash");
    /// ```
    pub fn file_too_large(path: &str, size: u64, limit: u64) -> StdError {
        StdError::new(
            ErrorCode::ResponseTooLarge,
            format!(
                "{path} is {size} bytes, over the {limit}-byte read limit; search it with grep or print a line range with bash"
            ),
        )
        .with_path(path)
    }

    /// `binary_file` for a file holding a NUL byte: «`Cannot read binary file: {path}`».
    pub fn binary_file(path: &str) -> StdError {
        StdError::new(
            ErrorCode::BinaryFile,
            format!("Cannot read binary file: {path}"),
        )
        .with_path(path)
    }

    /// `binary_file` for invalid UTF-8: «`File is not valid UTF-8: {path}`».
    pub fn not_utf8(path: &str) -> StdError {
        StdError::new(
            ErrorCode::BinaryFile,
            format!("File is not valid UTF-8: {path}"),
        )
        .with_path(path)
    }

    /// `offset_out_of_range` for `read`: «`Line offset {offset} is outside {path}`».
    pub fn line_offset_out_of_range(path: &str, offset: u64) -> StdError {
        StdError::new(
            ErrorCode::OffsetOutOfRange,
            format!("Line offset {offset} is outside {path}"),
        )
        .with_path(path)
    }

    /// `not_a_directory` for `ls`: «`Cannot list a file: {path}`».
    pub fn cannot_list_file(path: &str) -> StdError {
        StdError::new(
            ErrorCode::NotADirectory,
            format!("Cannot list a file: {path}"),
        )
        .with_path(path)
    }

    /// `offset_out_of_range` for `ls`:
    /// «`Entry offset {offset} is outside {path}, which has {n} entries`».
    pub fn entry_offset_out_of_range(path: &str, offset: u64, entries: u64) -> StdError {
        StdError::new(
            ErrorCode::OffsetOutOfRange,
            format!("Entry offset {offset} is outside {path}, which has {entries} entries"),
        )
        .with_path(path)
    }

    /// `invalid_input` for a flow request the schema would refuse, e.g. an
    /// `offset` of 0: «`Invalid {flow} input: {detail}`». The spec states the
    /// constraint (integer ≥ 1) but not the message, so this wording is
    /// lawsuite's.
    pub fn invalid_flow_input(flow: &str, detail: &str) -> StdError {
        StdError::new(
            ErrorCode::InvalidInput,
            format!("Invalid {flow} input: {detail}"),
        )
    }

    /// `invalid_input` whose whole message is `message`: a request whose
    /// fields contradict each other (e.g. a `bash` call giving both
    /// `command` and `script`).
    pub fn invalid_input(message: &str) -> StdError {
        StdError::new(ErrorCode::InvalidInput, message)
    }

    /// `timeout` for `bash`: «`Command timed out: {invocation}`».
    pub fn command_timed_out(invocation: &str) -> StdError {
        StdError::new(
            ErrorCode::Timeout,
            format!("Command timed out: {invocation}"),
        )
    }

    /// `command_failed` for a process that could not be spawned:
    /// «`Command failed to start: exec: {command}: {reason}`».
    pub fn command_failed_to_start(command: &str, err: &std::io::Error) -> StdError {
        StdError::new(
            ErrorCode::CommandFailed,
            format!(
                "Command failed to start: exec: {command}: {}",
                host_message(err)
            ),
        )
    }

    /// Whether the spec fixes this failure's message word for word: it is
    /// written in one of the exact templates of search-contract §3, §8.1,
    /// §10 (§10.1's malformed-construct details included), §17 or
    /// read-ls-flows §1–§2, none of whose substitutions is a host's text
    /// or a peer's own (see [`message_is_fixed`]).
    ///
    /// ```
    /// use lawsuite::contract::{ErrorCode, StdError};
    /// assert!(StdError::file_not_found("a.ts", ". The working directory holds: b.ts.").message_is_fixed());
    /// assert!(StdError::invalid_options("-i and -S are mutually exclusive").message_is_fixed());
    /// // rg's stderr, and a host's reason, are no template of the spec.
    /// assert!(!StdError::new(ErrorCode::InvalidPattern, "rg: error parsing glob").message_is_fixed());
    /// let denied = std::io::Error::from(std::io::ErrorKind::PermissionDenied);
    /// assert!(!StdError::cannot_search("/r", &denied).message_is_fixed());
    /// ```
    pub fn message_is_fixed(&self) -> bool {
        message_is_fixed(self.code, &self.message)
    }

    /// `SearchContract.isContractRejection`: an `invalid_pattern` written by
    /// this contract (safe to show a model), as opposed to `rg`'s stderr.
    pub fn is_contract_rejection(&self) -> bool {
        self.code == ErrorCode::InvalidPattern && self.message.starts_with(PATTERN_PREFIX)
    }
}

/// Whether `message` is, for a failure of `code`, one of the messages the
/// spec fixes word for word, so that two peers failing with `code` and
/// both writing such a message must write the same one (conformance-kit
/// §4 compares codes alone; lawsuite compares these messages too, so a
/// wrong detail, column or not-found hint is a divergence).
///
/// Fixed (the template, then its substitutions, all from the call and the
/// tree):
///
/// | code | message | spec |
/// | --- | --- | --- |
/// | `invalid_input` | «`Invalid ripgrep options: {detail}`» | search-contract §3 |
/// | `invalid_pattern` | «`Unsupported ripgrep pattern "{pattern}": {detail}`», but not an engine reason | §8.1, §10, §10.1 |
/// | `not_found` | «`Path not found: {root}`», «`File not found: {path}{hint}`», «`Directory not found: {path}`» | §7.1; read-ls-flows §1.3, §1.6, §2.3 |
/// | `permission_denied` | «`Permission denied: {path}`» | read-ls-flows, the read-side mapping |
/// | `is_directory`, `not_a_directory` | «`Cannot read a directory: {path}`», «`Cannot list a file: {path}`» | read-ls-flows §1.3, §2.3 |
/// | `offset_out_of_range` | «`Line offset {offset} is outside {path}`», «`Entry offset {offset} is outside {path}, which has {n} entries`» | read-ls-flows §1.3, §2.3 |
/// | `response_too_large` | «`{path} is {size} bytes, over the 67108864-byte read limit; …`» | read-ls-flows §1.3 |
/// | `binary_file` | «`Cannot read binary file: {path}`», «`File is not valid UTF-8: {path}`» | read-ls-flows §1.3 |
/// | `timeout` | «`Command timed out: {invocation}`» | read-ls-flows §4 |
///
/// Not fixed, so compared by code alone: a message carrying a host's
/// reason («`Cannot search {root}: …`», «`Could not read {path}: …`»,
/// «`Command failed to start: …`»), an engine reason of §10.2 (the spec
/// calls its drift cosmetic), «`Cannot search binary file: {path}`»
/// (native-peer.md: its root spelling differs between the shipped peers),
/// `rg`'s stderr (§17: private, no contract rejection), the messages of
/// `provider_unavailable` and `request_failed` (each peer's own), and
/// lawsuite's own wordings (a paging field of 0, `unsupported`, faults).
///
/// ```
/// use lawsuite::contract::{message_is_fixed, ErrorCode};
/// let column = r#"Unsupported ripgrep pattern "Rule({": "{" at column 6 is not a repetition count; write \{ for a literal brace"#;
/// assert!(message_is_fixed(ErrorCode::InvalidPattern, column));
/// let engine = r#"Unsupported ripgrep pattern "a**": invalid expression: Nothing to repeat"#;
/// assert!(!message_is_fixed(ErrorCode::InvalidPattern, engine));
/// // The template must be the code's own.
/// assert!(!message_is_fixed(ErrorCode::CommandFailed, "Path not found: /r"));
/// ```
pub fn message_is_fixed(code: ErrorCode, message: &str) -> bool {
    let starts = |prefixes: &[&str]| prefixes.iter().any(|p| message.starts_with(p));
    match code {
        ErrorCode::InvalidInput => starts(&["Invalid ripgrep options: "]),
        ErrorCode::InvalidPattern => {
            starts(&[PATTERN_PREFIX])
                && !message.contains("\": invalid expression: ")
                && !message.ends_with("\": invalid Smithers Ripgrep ASCII v1 expression")
        }
        ErrorCode::NotFound => starts(&[
            "Path not found: ",
            "File not found: ",
            "Directory not found: ",
        ]),
        ErrorCode::PermissionDenied => starts(&["Permission denied: "]),
        ErrorCode::IsDirectory => starts(&["Cannot read a directory: "]),
        ErrorCode::NotADirectory => starts(&["Cannot list a file: "]),
        ErrorCode::OffsetOutOfRange => starts(&["Line offset ", "Entry offset "]),
        ErrorCode::ResponseTooLarge => message
            .contains("-byte read limit; search it with grep or print a line range with bash"),
        ErrorCode::BinaryFile => {
            starts(&["Cannot read binary file: ", "File is not valid UTF-8: "])
        }
        ErrorCode::Timeout => starts(&["Command timed out: "]),
        _ => false,
    }
}

/// The host's error text without Rust's ` (os error N)` suffix, which Node's
/// messages do not carry and which would make messages differ per platform.
pub(crate) fn host_message(err: &std::io::Error) -> String {
    let text = err.to_string();
    match text.rfind(" (os error ") {
        Some(at) => text[..at].to_string(),
        None => text,
    }
}

impl fmt::Display for StdError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for StdError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_round_trips_as_its_string() {
        assert_eq!(ErrorCode::ALL.len(), 23);
        for code in ErrorCode::ALL {
            let json = serde_json::to_string(&code).unwrap();
            assert_eq!(json, format!("\"{}\"", code.as_str()));
            let back: ErrorCode = serde_json::from_str(&json).unwrap();
            assert_eq!(back, code);
        }
    }

    #[test]
    fn path_is_omitted_when_absent() {
        let err = StdError::invalid_options("--max-count must be at least 1");
        assert_eq!(
            serde_json::to_string(&err).unwrap(),
            r#"{"code":"invalid_input","message":"Invalid ripgrep options: --max-count must be at least 1"}"#
        );
        let err = StdError::root_not_found("missing");
        assert_eq!(
            serde_json::to_string(&err).unwrap(),
            r#"{"code":"not_found","message":"Path not found: missing","path":"missing"}"#
        );
    }

    #[test]
    fn rg_stderr_is_not_a_contract_rejection() {
        let err = StdError::new(ErrorCode::InvalidPattern, "rg: error parsing glob");
        assert!(!err.is_contract_rejection());
    }

    #[test]
    fn the_spec_fixes_the_templates_without_host_text() {
        let io = |kind| std::io::Error::from(kind);
        let fixed = [
            StdError::invalid_options("-i and -S are mutually exclusive"),
            StdError::invalid_pattern("{a}", "braces must contain alternatives"),
            StdError::root_not_found("/r/missing"),
            StdError::file_not_found("a", ". The working directory holds: b."),
            StdError::read_side(
                "d",
                &io(std::io::ErrorKind::NotFound),
                "Directory not found: d",
            ),
            StdError::read_side(
                "s",
                &io(std::io::ErrorKind::PermissionDenied),
                "File not found: s",
            ),
            StdError::is_directory("d"),
            StdError::cannot_list_file("f"),
            StdError::line_offset_out_of_range("f", 3),
            StdError::entry_offset_out_of_range("d", 4, 3),
            StdError::file_too_large("f", 67_108_865, 67_108_864),
            StdError::binary_file("f"),
            StdError::not_utf8("f"),
            StdError::command_timed_out("bash -s --"),
        ];
        for err in fixed {
            assert!(err.message_is_fixed(), "{err:?}");
        }
        let free = [
            StdError::cannot_search("/r", &io(std::io::ErrorKind::PermissionDenied)),
            StdError::read_side("f", &io(std::io::ErrorKind::Other), "File not found: f"),
            StdError::binary_root("/r/a.bin"),
            StdError::no_search_configured(),
            StdError::invalid_flow_input("read", "offset must be an integer of at least 1, got 0"),
            StdError::invalid_pattern("a**", "invalid expression: Nothing to repeat"),
            StdError::invalid_pattern("x", "invalid Smithers Ripgrep ASCII v1 expression"),
            StdError::new(ErrorCode::InvalidPattern, "rg: error parsing glob"),
            StdError::new(ErrorCode::RequestFailed, "rg returned malformed JSON"),
            StdError::new(
                ErrorCode::Unsupported,
                "The peer p does not implement flow/read",
            ),
            StdError::fault(ErrorCode::RequestFailed, "peer mine exited"),
            StdError::new(ErrorCode::NotFound, ""),
        ];
        for err in free {
            assert!(!err.message_is_fixed(), "{err:?}");
        }
    }

    #[test]
    fn host_message_drops_os_error_suffix() {
        let err = std::io::Error::from_raw_os_error(13);
        assert_eq!(host_message(&err), "Permission denied");
    }
}
