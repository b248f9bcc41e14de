//! The peer seam (search-contract §1): the [`Search`] trait every peer
//! implements, and the [`Noop`] peer.
//!
//! A peer receives only normalised input ([`GrepInput`], [`GlobInput`]) and
//! answers with an output or a [`StdError`]. The trait is object safe so the
//! harness can hold any number of peers as `Box<dyn Search>` / `Arc<dyn Search>`.

use std::sync::Arc;

use crate::contract::{GlobInput, GlobOutput, GrepInput, GrepOutput, StdError};

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
    /// Whether the peer answers `method` (`"grep"` or `"glob"`) at all.
    ///
    /// Built-in peers answer both. An external peer answers what its
    /// handshake declares; the conformance kit skips (and reports) calls to
    /// the other methods instead of counting them as divergences
    /// (see [`crate::protocol`]).
    fn supports(&self, method: &str) -> bool {
        let _ = method;
        true
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
            fn supports(&self, method: &str) -> bool {
                (**self).supports(method)
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
