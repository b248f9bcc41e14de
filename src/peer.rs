//! The peer seam (search-contract §1): the [`Search`] trait every peer
//! implements, and the [`Noop`] peer.
//!
//! A peer receives only normalised input ([`GrepInput`], [`GlobInput`]) and
//! answers with an output or a [`StdError`]. The trait is object safe so the
//! harness can hold any number of peers as `Box<dyn Search>` / `Arc<dyn Search>`.
//!
//! The same seam carries the read-only file flows of `read-ls-flows.md`
//! (`flow/read`, `flow/ls`) and the `flow/bash` capture rules: one trait for
//! every protocol method, so plans, laws, the protocol and `lawsuite call`
//! treat them like grep and glob. A peer that does not implement them keeps
//! the default methods, which refuse, and [`Search::supports`] says so, so
//! the harness skips those calls instead of counting a divergence.

use std::sync::Arc;

use crate::contract::{ErrorCode, GlobInput, GlobOutput, GrepInput, GrepOutput, StdError};
#[cfg(unix)]
use crate::flows::{BashOutput, BashRequest};
use crate::flows::{LsOutput, LsRequest, ReadOutput, ReadRequest};
use crate::kit::generator::Ground;

/// The protocol method names of the file flows (`peers/PROTOCOL.md`).
pub mod method {
    /// `Search.grep` on a normalised input.
    pub const GREP: &str = "grep";
    /// `Search.glob` on a normalised input.
    pub const GLOB: &str = "glob";
    /// The grep flow; answered by any peer that answers [`GREP`].
    pub const FLOW_GREP: &str = "flow/grep";
    /// The glob flow; answered by any peer that answers [`GLOB`].
    pub const FLOW_GLOB: &str = "flow/glob";
    /// The `read` flow (read-ls-flows §1).
    pub const FLOW_READ: &str = "flow/read";
    /// The `ls` flow (read-ls-flows §2).
    pub const FLOW_LS: &str = "flow/ls";
    /// The `bash` capture rules (read-ls-flows §4).
    pub const FLOW_BASH: &str = "flow/bash";
}

/// The [`Search`] method a protocol method runs on, as [`Search::supports`]
/// is asked about it: `flow/grep` and `flow/glob` run through the flow layer
/// on the peer's `grep` and `glob`; every other method is its own.
///
/// ```
/// use lawsuite::peer::capability;
/// assert_eq!(capability("flow/grep"), "grep");
/// assert_eq!(capability("flow/read"), "flow/read");
/// ```
pub fn capability(method: &str) -> &str {
    match method {
        method::FLOW_GREP => method::GREP,
        method::FLOW_GLOB => method::GLOB,
        other => other,
    }
}

/// The answer of a peer to a method it does not implement: `unsupported`,
/// naming the peer and the method.
///
/// ```
/// use lawsuite::peer::not_implemented;
/// let err = not_implemented("ripgrep", "flow/read");
/// assert_eq!(err.code.as_str(), "unsupported");
/// assert_eq!(err.message, "The peer ripgrep does not implement flow/read");
/// ```
pub fn not_implemented(peer: &str, method: &str) -> StdError {
    StdError::new(
        ErrorCode::Unsupported,
        format!("The peer {peer} does not implement {method}"),
    )
}

/// A search peer: an implementation of the contract's `Search` service.
///
/// ```
/// use lawsuite::contract::{GlobInput, GlobOutput, GrepInput, GrepOutput, StdError};
/// use lawsuite::peer::Search;
///
/// /// A peer that finds nothing anywhere (and is wrong about most trees).
/// struct Empty;
///
/// impl Search for Empty {
///     fn name(&self) -> &str { "empty" }
///     fn version(&self) -> String { "0.0.0".into() }
///     fn grep(&self, _: &GrepInput) -> Result<GrepOutput, StdError> { Ok(GrepOutput::default()) }
///     fn glob(&self, _: &GlobInput) -> Result<GlobOutput, StdError> { Ok(GlobOutput::default()) }
/// }
///
/// let peer: Box<dyn Search> = Box::new(Empty);
/// assert!(peer.grep(&GrepInput::new("x", "."))?.matches.is_empty());
/// // The file flows keep their refusing defaults, and the peer says so.
/// assert!(peer.supports("glob") && !peer.supports("flow/read"));
/// assert!(peer.read(&lawsuite::flows::ReadRequest::new("a.txt")).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait Search: Send + Sync {
    /// The name the peer is registered under (e.g. `portable`).
    fn name(&self) -> &str;
    /// A version string for reports (e.g. `rg 15.2.0`).
    fn version(&self) -> String;
    /// Answer one normalised `grep` call.
    fn grep(&self, input: &GrepInput) -> Result<GrepOutput, StdError>;
    /// Answer one normalised `glob` call.
    fn glob(&self, input: &GlobInput) -> Result<GlobOutput, StdError>;
    /// Answer one `read` call (read-ls-flows §1). Relative paths resolve
    /// against the peer's working directory.
    ///
    /// The default refuses with [`not_implemented`]; a peer that overrides
    /// it also lists [`method::FLOW_READ`] in [`Search::supports`].
    fn read(&self, input: &ReadRequest) -> Result<ReadOutput, StdError> {
        let _ = input;
        Err(not_implemented(self.name(), method::FLOW_READ))
    }
    /// Answer one `ls` call (read-ls-flows §2); the default refuses, as
    /// [`Search::read`]'s does.
    fn ls(&self, input: &LsRequest) -> Result<LsOutput, StdError> {
        let _ = input;
        Err(not_implemented(self.name(), method::FLOW_LS))
    }
    /// Run one `bash` call (read-ls-flows §4); the default refuses, as
    /// [`Search::read`]'s does.
    #[cfg(unix)]
    fn bash(&self, input: &BashRequest) -> Result<BashOutput, StdError> {
        let _ = input;
        Err(not_implemented(self.name(), method::FLOW_BASH))
    }
    /// Whether the peer answers `method` at all: a [`capability`] — `grep`,
    /// `glob`, `flow/read`, `flow/ls` or `flow/bash`.
    ///
    /// The default is `grep` and `glob` only, the methods every peer must
    /// implement; a peer overriding [`Search::read`], [`Search::ls`] or
    /// [`Search::bash`] widens it. An external peer answers what its
    /// handshake declares. The conformance kit skips (and reports) calls to
    /// the other methods instead of counting them as divergences (see
    /// [`crate::protocol`]).
    fn supports(&self, method: &str) -> bool {
        matches!(method, method::GREP | method::GLOB)
    }
    /// The widest ground of generated plans the peer claims to handle
    /// ([`Ground`]): built-in peers handle [`Ground::Full`]; an external
    /// peer says in its handshake. A sweep over full-ground plans leaves out
    /// (and names) a peer that claims only [`Ground::Shared`], rather than
    /// counting what it never claimed as divergences.
    fn ground(&self) -> Ground {
        Ground::Full
    }
    /// Anything worth showing beside a failure of this peer that its
    /// answers cannot carry (an external peer's fault log and stderr tail).
    fn diagnostics(&self) -> Option<String> {
        None
    }
}

/// Forward every method through a smart pointer, so `Arc<dyn Search>` and
/// `Box<dyn Search>` are peers too (the registry hands out `Arc`s).
macro_rules! forward_search {
    ($pointer:ident) => {
        impl<T: Search + ?Sized> Search for $pointer<T> {
            fn name(&self) -> &str {
                (**self).name()
            }
            fn version(&self) -> String {
                (**self).version()
            }
            fn grep(&self, input: &GrepInput) -> Result<GrepOutput, StdError> {
                (**self).grep(input)
            }
            fn glob(&self, input: &GlobInput) -> Result<GlobOutput, StdError> {
                (**self).glob(input)
            }
            fn read(&self, input: &ReadRequest) -> Result<ReadOutput, StdError> {
                (**self).read(input)
            }
            fn ls(&self, input: &LsRequest) -> Result<LsOutput, StdError> {
                (**self).ls(input)
            }
            #[cfg(unix)]
            fn bash(&self, input: &BashRequest) -> Result<BashOutput, StdError> {
                (**self).bash(input)
            }
            fn supports(&self, method: &str) -> bool {
                (**self).supports(method)
            }
            fn ground(&self) -> Ground {
                (**self).ground()
            }
            fn diagnostics(&self) -> Option<String> {
                (**self).diagnostics()
            }
        }
    };
}

forward_search!(Arc);
forward_search!(Box);

/// `Search.makeNoop()` (§1): refuses every call with `provider_unavailable`,
/// «`No search implementation is configured`».
///
/// ```
/// use lawsuite::contract::{ErrorCode, GlobInput};
/// use lawsuite::peer::{Noop, Search};
/// let err = Noop.glob(&GlobInput::new("*", ".")).unwrap_err();
/// assert_eq!(err.code, ErrorCode::ProviderUnavailable);
/// assert_eq!(err.message, "No search implementation is configured");
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Noop;

impl Search for Noop {
    fn name(&self) -> &str {
        "noop"
    }
    fn version(&self) -> String {
        env!("CARGO_PKG_VERSION").to_string()
    }
    fn grep(&self, _: &GrepInput) -> Result<GrepOutput, StdError> {
        Err(StdError::no_search_configured())
    }
    fn glob(&self, _: &GlobInput) -> Result<GlobOutput, StdError> {
        Err(StdError::no_search_configured())
    }
}
