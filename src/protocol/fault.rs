//! Faults: what went wrong with a peer process, kept in its log and
//! turned into the contract error a call answers (the table of
//! [`client`](super::client) says which fault follows from what).

use std::fmt;

use serde::{Deserialize, Serialize};

use super::messages::RpcError;
use crate::contract::{ErrorCode, StdError};

/// What went wrong with a peer process.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FaultKind {
    /// No answer within the timeout.
    Timeout,
    /// The process could not start, exited, or closed its stdout.
    Crash,
    /// A line that is not a JSON-RPC response to the outstanding request.
    ProtocolViolation,
    /// A JSON-RPC error that is not a contract failure (the process is kept).
    ErrorResponse,
    /// No common protocol version, or an unusable handshake answer.
    Incompatible,
}

impl FaultKind {
    /// The snake_case name used in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            FaultKind::Timeout => "timeout",
            FaultKind::Crash => "crash",
            FaultKind::ProtocolViolation => "protocol_violation",
            FaultKind::ErrorResponse => "error_response",
            FaultKind::Incompatible => "incompatible",
        }
    }

    /// The contract code a call answers with after this fault.
    pub fn code(self) -> ErrorCode {
        match self {
            FaultKind::Timeout => ErrorCode::Timeout,
            FaultKind::Incompatible => ErrorCode::ProviderUnavailable,
            _ => ErrorCode::RequestFailed,
        }
    }
}

impl fmt::Display for FaultKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One entry of a peer's fault log.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fault {
    /// The registered peer name.
    pub peer: String,
    /// What kind of fault.
    pub kind: FaultKind,
    /// The method being called (`initialize` for the handshake).
    pub method: String,
    /// What happened, in one sentence.
    pub message: String,
    /// The process's stderr, its start and its end when it was long, with
    /// how many bytes were left out between (lossy UTF-8; empty if it
    /// said nothing).
    pub stderr_tail: String,
    /// The process id, when a process was running.
    pub pid: Option<u32>,
}

impl Fault {
    /// The contract error a call answers with.
    pub fn to_std_error(&self) -> StdError {
        StdError::fault(self.kind.code(), format!("{self}"))
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "peer {} {} during {}: {}",
            self.peer, self.kind, self.method, self.message
        )?;
        let tail = self.stderr_tail.trim_end();
        if !tail.is_empty() {
            write!(f, "\n  stderr:")?;
            for line in tail.lines() {
                write!(f, "\n    {line}")?;
            }
        }
        Ok(())
    }
}

impl std::error::Error for Fault {}

/// The outcome of [`ExternalPeer::call`](super::client::ExternalPeer::call) that is not a result.
#[derive(Clone, Debug, PartialEq)]
pub enum CallError {
    /// The peer answered with a JSON-RPC error (a contract failure when its
    /// `code` is −32000).
    Rpc(RpcError),
    /// The exchange failed (see the table of [`client`](super::client)).
    Fault(Fault),
}

impl fmt::Display for CallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CallError::Rpc(e) => write!(f, "JSON-RPC error {}: {}", e.code, e.message),
            CallError::Fault(fault) => write!(f, "{fault}"),
        }
    }
}

impl std::error::Error for CallError {}

/// Why an external peer could not be made or its process started.
#[derive(Debug)]
#[non_exhaustive]
pub enum StartError {
    /// The command is empty.
    EmptyCommand {
        /// The peer.
        peer: String,
    },
    /// The I/O runtime the client runs on could not be built.
    Runtime {
        /// The peer.
        peer: String,
        /// What the OS said.
        source: std::io::Error,
    },
    /// The program could not be started.
    Spawn {
        /// The command line.
        command: String,
        /// What the OS said.
        source: std::io::Error,
    },
    /// The child's pipes were not set up.
    Pipes,
}

impl fmt::Display for StartError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StartError::EmptyCommand { peer } => write!(
                f,
                "peer {peer:?} has an empty command; give the program and its arguments"
            ),
            StartError::Runtime { peer, source } => {
                write!(f, "cannot start the I/O runtime for {peer}: {source}")
            }
            StartError::Spawn { command, source } => {
                write!(f, "could not start {command:?}: {source}")
            }
            StartError::Pipes => f.write_str("the child's pipes were not set up"),
        }
    }
}

impl std::error::Error for StartError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            StartError::Runtime { source, .. } | StartError::Spawn { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// How an exchange failed, before the process is reaped.
pub(super) type Failure = (FaultKind, String);
