//! The messages of the peer protocol (`peers/PROTOCOL.md`): JSON-RPC 2.0
//! envelopes and the `initialize` handshake, one JSON Schema each under
//! `peers/schema/`.
//!
//! `grep` and `glob` carry the contract's own wire types
//! ([`crate::contract::GrepInput`] in, [`crate::contract::GrepOutput`] out,
//! and so on), and `flow/read`, `flow/ls`, `flow/bash` the file flows'
//! ([`crate::flow::ReadRequest`] in, [`crate::flow::ReadOutput`] out, …),
//! so this module only adds what the protocol itself needs.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::contract::StdError;

/// The `jsonrpc` member of every message.
pub const JSONRPC: &str = "2.0";

/// JSON-RPC: the line is not JSON.
pub const PARSE_ERROR: i64 = -32700;
/// JSON-RPC: the JSON is not a request object.
pub const INVALID_REQUEST: i64 = -32600;
/// JSON-RPC: no such method (or one the peer does not declare).
pub const METHOD_NOT_FOUND: i64 = -32601;
/// JSON-RPC: the params do not have the method's shape.
pub const INVALID_PARAMS: i64 = -32602;
/// JSON-RPC: the peer failed for a reason of its own.
pub const INTERNAL_ERROR: i64 = -32603;
/// A contract failure: `data` is the [`StdError`] (`code`, `message`,
/// `path?`). In the implementation-defined server-error range.
pub const CONTRACT_FAILURE: i64 = -32000;
/// `initialize`: the two protocol ranges do not overlap; `data` is the
/// peer's range (`{min, max}`).
pub const NO_COMMON_VERSION: i64 = -32001;

/// A request id: the harness always sends integers; a peer must echo the
/// id it was sent.
pub type Id = u64;

/// A request from the harness to a peer.
///
/// ```
/// use lawsuite::protocol::messages::Request;
/// let req = Request::new(7, "glob", serde_json::json!({"pattern": "*"}));
/// assert_eq!(
///     serde_json::to_string(&req)?,
///     r#"{"jsonrpc":"2.0","id":7,"method":"glob","params":{"pattern":"*"}}"#,
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Request {
    /// Always `"2.0"`.
    pub jsonrpc: String,
    /// The id the answer must carry.
    pub id: Id,
    /// The method name (`initialize`, `grep`, `glob`, `flow/grep`, …).
    pub method: String,
    /// The method's parameters.
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub params: Value,
}

impl Request {
    /// A request with `jsonrpc` filled in.
    pub fn new(id: Id, method: &str, params: Value) -> Request {
        Request {
            jsonrpc: JSONRPC.to_string(),
            id,
            method: method.to_string(),
            params,
        }
    }
}

/// A JSON-RPC error object.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RpcError {
    /// One of the codes above (or any other integer a peer chooses).
    pub code: i64,
    /// A sentence for people.
    pub message: String,
    /// Structured detail: the [`StdError`] for [`CONTRACT_FAILURE`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl RpcError {
    /// An error with no `data`.
    pub fn new(code: i64, message: impl Into<String>) -> RpcError {
        RpcError {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// The JSON-RPC form of a contract failure.
    ///
    /// ```
    /// use lawsuite::contract::StdError;
    /// use lawsuite::protocol::messages::RpcError;
    /// let err = RpcError::contract(&StdError::root_not_found("nope"));
    /// assert_eq!(
    ///     serde_json::to_string(&err)?,
    ///     r#"{"code":-32000,"message":"Path not found: nope","data":{"code":"not_found","message":"Path not found: nope","path":"nope"}}"#,
    /// );
    /// assert_eq!(err.contract_failure(), Some(StdError::root_not_found("nope")));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn contract(err: &StdError) -> RpcError {
        RpcError {
            code: CONTRACT_FAILURE,
            message: err.message.clone(),
            data: serde_json::to_value(err).ok(),
        }
    }

    /// The [`StdError`] this error carries, when it is a well-formed
    /// contract failure (`code` −32000 and `data` a `StdError`).
    pub fn contract_failure(&self) -> Option<StdError> {
        if self.code != CONTRACT_FAILURE {
            return None;
        }
        serde_json::from_value(self.data.clone()?).ok()
    }
}

/// A response from a peer: exactly one of `result` and `error`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Response {
    /// Always `"2.0"`.
    pub jsonrpc: String,
    /// The id of the request answered (`null` only for a parse error).
    pub id: Option<Id>,
    /// The answer, on success.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    /// The failure, otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<RpcError>,
}

impl Response {
    /// A success.
    pub fn ok(id: Id, result: Value) -> Response {
        Response {
            jsonrpc: JSONRPC.to_string(),
            id: Some(id),
            result: Some(result),
            error: None,
        }
    }

    /// A failure (`id` is `None` when the request could not be read).
    pub fn err(id: Option<Id>, error: RpcError) -> Response {
        Response {
            jsonrpc: JSONRPC.to_string(),
            id,
            result: None,
            error: Some(error),
        }
    }
}

/// An inclusive range of protocol versions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VersionRange {
    /// The oldest version spoken.
    pub min: u32,
    /// The newest version spoken.
    pub max: u32,
}

impl VersionRange {
    /// The newest version both ranges hold, if any.
    ///
    /// ```
    /// use lawsuite::protocol::messages::VersionRange;
    /// let harness = VersionRange { min: 1, max: 2 };
    /// assert_eq!(harness.common(&VersionRange { min: 2, max: 5 }), Some(2));
    /// assert_eq!(harness.common(&VersionRange { min: 3, max: 5 }), None);
    /// ```
    pub fn common(&self, other: &VersionRange) -> Option<u32> {
        let lo = self.min.max(other.min);
        let hi = self.max.min(other.max);
        (lo <= hi).then_some(hi)
    }

    /// Whether `version` is in the range.
    pub fn contains(&self, version: u32) -> bool {
        (self.min..=self.max).contains(&version)
    }
}

impl std::fmt::Display for VersionRange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.min == self.max {
            write!(f, "{}", self.min)
        } else {
            write!(f, "{}..={}", self.min, self.max)
        }
    }
}

/// `initialize` params: the versions the harness speaks.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InitializeParams {
    /// The harness's range.
    pub protocol: VersionRange,
}

/// Who a peer is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PeerInfo {
    /// The peer's own name (the registry name may differ).
    pub name: String,
    /// Its version, for reports.
    pub version: String,
    /// The language it is written in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    /// Where to read about it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub homepage: Option<String>,
}

/// Which plans a peer claims to handle: the lawsuite generator's grounds,
/// the same type and the same JSON (`"shared"`, `"full"`).
pub use crate::peer::Ground;

/// What a peer can do.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Capabilities {
    /// The methods it answers, of `grep`, `glob`, `flow/grep`, `flow/glob`,
    /// `flow/read`, `flow/ls`, `flow/bash`.
    pub methods: Vec<String>,
    /// The ground it claims.
    pub ground: Ground,
}

/// `initialize` result.
///
/// ```
/// use lawsuite::protocol::messages::InitializeResult;
/// let r: InitializeResult = serde_json::from_str(
///     r#"{"protocol":1,"peer":{"name":"py","version":"0.1"},"capabilities":{"methods":["glob"],"ground":"shared"}}"#,
/// )?;
/// assert_eq!(r.capabilities.methods, ["glob"]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InitializeResult {
    /// The version chosen: in both ranges.
    pub protocol: u32,
    /// Who answers.
    pub peer: PeerInfo,
    /// What it can do.
    pub capabilities: Capabilities,
}
