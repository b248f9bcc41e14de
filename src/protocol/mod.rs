//! The peer protocol: peers in any language, run as child processes and
//! spoken to over newline-delimited JSON-RPC 2.0 on their stdin/stdout
//! (`peers/PROTOCOL.md` is the specification; `peers/schema/` holds one
//! JSON Schema per message).
//!
//! * [`messages`]: the envelopes, the error codes and the `initialize`
//!   handshake.
//! * [`client`]: the harness side. An [`ExternalPeer`] is a
//!   [`Search`](crate::peer::Search)
//!   like any built-in peer, so `cargo test`, `lawsuite run` and
//!   `lawsuite call` use it unchanged. It owns the child process: per-call
//!   timeouts, a bounded stderr tail, faults (`timeout`, `crash`,
//!   `protocol_violation`) logged and mapped to contract errors, restarts
//!   with bounded back-off, and no zombie left behind.
//! * [`server`]: the peer side. [`serve`] answers the protocol for any
//!   [`Search`](crate::peer::Search); `lawsuite serve --peer portable` uses it.
//!
//! # Undeclared methods
//!
//! A peer lists the methods it answers in `initialize`'s
//! `capabilities.methods`. A call to a method it did not declare is never
//! sent: [`ExternalPeer`] answers it with an `unsupported` [`StdError`]
//! whose message starts with [`UNDECLARED_PREFIX`] ([`is_undeclared`]
//! recognises it), and [`Search::supports`](crate::peer::Search::supports) returns `false` for it, which
//! the conformance kit consults to skip the call instead of counting a
//! divergence (each law of a method it does not declare is an ignored
//! trial whose reason names the method, e.g. `mine does not answer
//! flow/bash`).
//!
//! # Example
//!
//! ```no_run
//! use std::time::Duration;
//! use lawsuite::contract::GlobInput;
//! use lawsuite::peer::Search;
//! use lawsuite::protocol::{ExternalPeer, PeerConfig};
//!
//! let mut config = PeerConfig::new("py", ["python3", "peers/examples/glob_peer.py"]);
//! config.timeout = Duration::from_secs(2);
//! let peer = ExternalPeer::new(config)?;
//! let out = peer.glob(&GlobInput::new("**/*.rs", "src"))?;
//! assert!(!peer.supports(lawsuite::peer::Method::Grep));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#[cfg(feature = "external")]
pub mod client;
#[cfg(feature = "external")]
mod fault;
mod framing;
pub mod messages;
#[cfg(feature = "external")]
mod process;
pub mod server;
#[cfg(feature = "external")]
mod stderr;

#[cfg(feature = "external")]
pub use client::{ExternalPeer, Fault, FaultKind, PeerConfig, StartError};
pub use server::serve;

use crate::contract::{ErrorCode, StdError};
use messages::VersionRange;

/// An external peer's per-call timeout when nothing sets another (the
/// registry's `timeout_ms`, [`crate::registry::PeerOptions`]): 10 s.
pub const DEFAULT_CALL_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// An external peer's handshake timeout when nothing sets another (the
/// registry's `handshake_timeout_ms`): the `initialize` answer waits for
/// the program to start, and a peer started from source (TypeScript
/// through `tsx`, a cold JIT) took 11.5 s under load, over the per-call
/// default. A program that never answers is still stopped, later.
pub const DEFAULT_HANDSHAKE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(60);

/// The protocol versions this harness (and [`serve`]) speaks.
pub const PROTOCOL: VersionRange = VersionRange { min: 1, max: 1 };

/// The longest line either side reads: 64 MiB. A longer line from a peer
/// is a `protocol_violation`; it is never held in memory whole.
pub const MAX_LINE_BYTES: usize = 64 << 20;

/// The method names of the protocol.
pub mod method {
    pub use crate::peer::method::*;
    /// The handshake.
    pub const INITIALIZE: &str = "initialize";
    /// Answer, then exit.
    pub const SHUTDOWN: &str = "shutdown";
}

/// The start of the message of an [`undeclared`] error.
pub const UNDECLARED_PREFIX: &str = "Not declared by the peer: ";

/// The answer to a call the peer did not declare in its capabilities: an
/// `unsupported` error with a message starting with [`UNDECLARED_PREFIX`].
///
/// ```
/// use lawsuite::protocol::{is_undeclared, undeclared};
/// let err = undeclared("py", "grep");
/// assert_eq!(err.code.as_str(), "unsupported");
/// assert!(is_undeclared(&err));
/// ```
pub fn undeclared(peer: &str, method: &str) -> StdError {
    StdError::new(
        ErrorCode::Unsupported,
        format!(
            "{UNDECLARED_PREFIX}{peer} does not list {method} in its capabilities, so the call is skipped, not compared"
        ),
    )
}

/// Whether `err` is an [`undeclared`] answer (a skip, not a divergence).
pub fn is_undeclared(err: &StdError) -> bool {
    err.code == ErrorCode::Unsupported && err.message.starts_with(UNDECLARED_PREFIX)
}
