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

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::contract::{
    ErrorCode, GlobInput, GlobOutput, GlobRequest, GrepFlowOutput, GrepInput, GrepOutput,
    GrepRequest, StdError,
};
#[cfg(unix)]
use crate::flow::{BashOutput, BashRequest};
use crate::flow::{LsOutput, LsRequest, ReadOutput, ReadRequest, WithLiteral};

/// The one list of the protocol's methods: each [`Method`] variant with its
/// doc, its wire name and the name of its wire-name constant. Everything
/// that lists methods is made from it (the [`method`] constants,
/// [`Method::ALL`], [`Method::name`], the JSON names of `Method` and of
/// [`crate::call::Call`], the methods a handshake may declare) or matches
/// on a `Method` or a `Call` exhaustively, so a new method is one line here
/// and the compiler names every match that must answer it.
macro_rules! methods {
    ($($(#[$doc:meta])* $variant:ident = $wire:literal, $constant:ident;)*) => {
        /// The wire names of the protocol methods (`peers/PROTOCOL.md`); in
        /// code, a method is a [`Method`], and these strings are only read
        /// and written at the edges (law files, the protocol, the command
        /// line).
        pub mod method {
            $(
                #[doc = concat!("`", $wire, "`: the wire name of [`Method::", stringify!($variant), "`](super::Method::", stringify!($variant), ").")]
                pub const $constant: &str = $wire;
            )*
        }

        /// One method of the protocol and of the [`Search`] seam.
        ///
        /// The seam methods `grep` and `glob` take normalised input;
        /// `flow/grep` and `flow/glob` take a caller's request and run the
        /// whole flow (validation, defaults, literal retry). A peer that
        /// implements only the seam gets the flow from lawsuite's own flow
        /// layer ([`crate::flow`]); one that declares the flow methods (an
        /// external peer implementing its own flow layer) is sent them, so
        /// its validation is what the flow laws test.
        ///
        /// ```
        /// use lawsuite::peer::Method;
        /// let m: Method = "flow/grep".parse()?;
        /// assert_eq!((m, m.name(), m.seam()), (Method::FlowGrep, "flow/grep", Method::Grep));
        /// assert!("flow/cat".parse::<Method>().is_err());
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        pub enum Method {
            $(
                $(#[$doc])*
                #[serde(rename = $wire)]
                $variant,
            )*
        }

        impl Method {
            /// Every method, in protocol order.
            pub const ALL: [Method; [$($wire),*].len()] = [$(Method::$variant),*];

            /// The wire name (`grep`, `flow/read`, …).
            pub fn name(self) -> &'static str {
                match self {
                    $(Method::$variant => method::$constant,)*
                }
            }
        }
    };
}

methods! {
    /// `Search.grep` on a normalised [`GrepInput`].
    Grep = "grep", GREP;
    /// `Search.glob` on a normalised [`GlobInput`].
    Glob = "glob", GLOB;
    /// The grep flow on a [`GrepRequest`] (search-contract §3, §18);
    /// answered by any peer that answers `grep`.
    FlowGrep = "flow/grep", FLOW_GREP;
    /// The glob flow on a [`GlobRequest`] (search-contract §5); answered
    /// by any peer that answers `glob`.
    FlowGlob = "flow/glob", FLOW_GLOB;
    /// The `read` flow (read-ls-flows §1).
    FlowRead = "flow/read", FLOW_READ;
    /// The `ls` flow (read-ls-flows §2).
    FlowLs = "flow/ls", FLOW_LS;
    /// The `bash` capture rules (read-ls-flows §4).
    FlowBash = "flow/bash", FLOW_BASH;
}

impl Method {
    /// The seam method a flow runs on when lawsuite's flow layer runs it:
    /// `grep` for `flow/grep`, `glob` for `flow/glob`; every other method
    /// is its own.
    pub fn seam(self) -> Method {
        match self {
            Method::FlowGrep => Method::Grep,
            Method::FlowGlob => Method::Glob,
            other => other,
        }
    }

    /// Whether a call of this method leaves its tree as it found it: every
    /// method but `flow/bash` searches, lists or reads (search-contract §1,
    /// read-ls-flows §1–§2), so a tree guard may hold a peer to it; a bash
    /// command may write.
    ///
    /// ```
    /// use lawsuite::peer::Method;
    /// assert!(Method::FlowRead.only_reads());
    /// assert!(!Method::FlowBash.only_reads());
    /// ```
    pub fn only_reads(self) -> bool {
        self != Method::FlowBash
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A method name that is not one of [`Method::ALL`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownMethod(pub String);

impl fmt::Display for UnknownMethod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = Method::ALL.iter().map(|m| m.name()).collect();
        write!(
            f,
            "unknown method {:?}; the methods are {}",
            self.0,
            names.join(", ")
        )
    }
}

impl std::error::Error for UnknownMethod {}

impl FromStr for Method {
    type Err = UnknownMethod;

    fn from_str(name: &str) -> Result<Method, UnknownMethod> {
        Method::ALL
            .into_iter()
            .find(|m| m.name() == name)
            .ok_or_else(|| UnknownMethod(name.to_string()))
    }
}

/// Which plans a peer claims to handle: the `lawsuite` generator's grounds
/// ([`crate::kit::lawsuite`]).
///
/// In JSON (a handshake's `capabilities.ground`, a regression file's
/// options): `"shared"` or `"full"`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Ground {
    /// Plain files and directories only: what every peer on every host can
    /// be asked about.
    #[default]
    Shared,
    /// Also CRLF lines, invalid UTF-8, BOMs, symlinks, unreadable entries
    /// and empty directories. Needs a unix host to materialize.
    Full,
}

impl Ground {
    /// `shared` or `full`.
    pub fn name(self) -> &'static str {
        match self {
            Ground::Shared => "shared",
            Ground::Full => "full",
        }
    }

    /// Whether this is the default, [`Ground::Shared`] (serde skips it, so
    /// shared-ground plans keep the bytes they always had).
    pub fn is_shared(&self) -> bool {
        *self == Ground::Shared
    }
}

impl FromStr for Ground {
    type Err = UnknownGround;

    fn from_str(name: &str) -> Result<Ground, UnknownGround> {
        match name {
            "shared" => Ok(Ground::Shared),
            "full" => Ok(Ground::Full),
            other => Err(UnknownGround(other.to_string())),
        }
    }
}

/// A name that is no ground's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownGround(pub String);

impl fmt::Display for UnknownGround {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown ground {:?}; use shared or full", self.0)
    }
}

impl std::error::Error for UnknownGround {}

/// How an external peer's process has fared: its fault log, for reports
/// to show beside the failures it caused ([`Search::health`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Health {
    /// Faults so far (timeouts, crashes, protocol violations, …).
    pub faults: usize,
    /// The most recent faults, oldest first, one sentence each with the
    /// fault kind, the method, and the stderr tail.
    pub recent: Vec<String>,
    /// Set once the harness has given up restarting the peer: why. Every
    /// later call answers this fault without reaching a process.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
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
/// use lawsuite::peer::Method;
/// assert!(peer.supports(Method::Glob) && !peer.supports(Method::FlowRead));
/// assert!(peer.read(&lawsuite::flow::ReadRequest::new("a.txt")).is_err());
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
    /// Run the grep flow on a caller's request (search-contract §3, §18).
    ///
    /// The default is lawsuite's own flow layer over [`Search::grep`]
    /// ([`crate::flow::grep_with_literal`], which takes the one-pass
    /// [`Search::grep_with_literal`] where the peer offers it); a peer with
    /// a flow layer of its own (an
    /// external peer that declares `flow/grep`) answers it itself, so the
    /// flow laws test *its* validation, defaults and literal retry.
    fn flow_grep(&self, request: &GrepRequest) -> Result<GrepFlowOutput, StdError> {
        crate::flow::grep_with_literal(
            |input| self.grep(input),
            |input| self.grep_with_literal(input),
            request,
        )
    }
    /// A seam extension (lawsuite's, not the contract's): answer `input` as
    /// [`Search::grep`] does and, in the same pass over the tree, the same
    /// input with `fixedStrings: true`, the search §18's literal retry
    /// would ask for ([`WithLiteral`] says what each answer must be).
    ///
    /// The default flow layer asks for it where §18 could retry, so a
    /// regex that finds nothing costs one walk of the tree instead of two.
    /// The default answers `None`: the peer does not offer the pass, and
    /// the flow asks [`Search::grep`] twice, which gives the same answer.
    /// The built-in `portable` offers it.
    fn grep_with_literal(&self, input: &GrepInput) -> Option<Result<WithLiteral, StdError>> {
        let _ = input;
        None
    }
    /// Run the glob flow on a caller's request (search-contract §5); the
    /// default is [`crate::flow::glob`] over [`Search::glob`], as for
    /// [`Search::flow_grep`].
    fn flow_glob(&self, request: &GlobRequest) -> Result<GlobOutput, StdError> {
        crate::flow::glob(|input| self.glob(input), request)
    }
    /// Whether the peer answers `method` at all.
    ///
    /// The default is the seam's `grep` and `glob` and the flows lawsuite
    /// runs over them (`flow/grep`, `flow/glob`), the methods every peer
    /// must answer; a peer overriding [`Search::read`], [`Search::ls`] or
    /// [`Search::bash`] widens it. An external peer answers what its
    /// handshake declares. The conformance engine skips (and reports) calls
    /// to the other methods instead of counting them as failures.
    fn supports(&self, method: Method) -> bool {
        // Every method named, none by a wildcard: a new method's default
        // is decided here, not inherited.
        match method {
            Method::Grep | Method::Glob | Method::FlowGrep | Method::FlowGlob => true,
            Method::FlowRead | Method::FlowLs | Method::FlowBash => false,
        }
    }
    /// The widest ground of generated plans the peer claims to handle
    /// ([`Ground`]): built-in peers handle [`Ground::Full`]; an external
    /// peer says in its handshake. A sweep over full-ground plans leaves out
    /// (and names) a peer that claims only [`Ground::Shared`], rather than
    /// counting what it never claimed as divergences.
    fn ground(&self) -> Ground {
        Ground::Full
    }
    /// The language the peer is written in, when it says (an external
    /// peer's handshake); reports show it beside the version.
    fn language(&self) -> Option<String> {
        None
    }
    /// The fault log of a peer that runs as a process (an external peer);
    /// `None` for in-process peers. Reports show what changed during a
    /// failing trial beside it.
    fn health(&self) -> Option<Health> {
        None
    }
}

/// Implement [`Search`] for a type that wraps another peer: every method of
/// the trait goes to the peer `$inner` (a function of `&Self`) returns,
/// but those given after it, each `method = path` to a function with the
/// method's signature, in the trait's order. The one list of the trait's
/// methods outside the trait itself (a unit test holds the two to each
/// other): `Arc`, `Box`, [`Named`] and [`crate::testing::Altered`] are
/// made with it, so none forwards fewer methods than the trait has, and a
/// new method is forwarded by all of them once it is added here.
macro_rules! forward_search {
    (@either [] $forward:expr, ($($arg:expr),*)) => {
        $forward
    };
    (@either [$own:path] $forward:expr, ($($arg:expr),*)) => {
        $own($($arg),*)
    };
    (
        impl $([$($generics:tt)*])? Search for $ty:ty => $inner:path
        $(, name = $name:path)?
        $(, version = $version:path)?
        $(, grep = $grep:path)?
        $(, glob = $glob:path)?
        $(, read = $read:path)?
        $(, ls = $ls:path)?
        $(, bash = $bash:path)?
        $(, flow_grep = $flow_grep:path)?
        $(, grep_with_literal = $grep_with_literal:path)?
        $(, flow_glob = $flow_glob:path)?
        $(, supports = $supports:path)?
        $(, ground = $ground:path)?
        $(, language = $language:path)?
        $(, health = $health:path)?
        $(,)?
    ) => {
        impl$(<$($generics)*>)? $crate::peer::Search for $ty {
            fn name(&self) -> &str {
                forward_search!(@either [$($name)?] $inner(self).name(), (self))
            }
            fn version(&self) -> String {
                forward_search!(@either [$($version)?] $inner(self).version(), (self))
            }
            fn grep(
                &self,
                input: &$crate::contract::GrepInput,
            ) -> Result<$crate::contract::GrepOutput, $crate::contract::StdError> {
                forward_search!(@either [$($grep)?] $inner(self).grep(input), (self, input))
            }
            fn glob(
                &self,
                input: &$crate::contract::GlobInput,
            ) -> Result<$crate::contract::GlobOutput, $crate::contract::StdError> {
                forward_search!(@either [$($glob)?] $inner(self).glob(input), (self, input))
            }
            fn read(
                &self,
                input: &$crate::flow::ReadRequest,
            ) -> Result<$crate::flow::ReadOutput, $crate::contract::StdError> {
                forward_search!(@either [$($read)?] $inner(self).read(input), (self, input))
            }
            fn ls(
                &self,
                input: &$crate::flow::LsRequest,
            ) -> Result<$crate::flow::LsOutput, $crate::contract::StdError> {
                forward_search!(@either [$($ls)?] $inner(self).ls(input), (self, input))
            }
            #[cfg(unix)]
            fn bash(
                &self,
                input: &$crate::flow::BashRequest,
            ) -> Result<$crate::flow::BashOutput, $crate::contract::StdError> {
                forward_search!(@either [$($bash)?] $inner(self).bash(input), (self, input))
            }
            fn flow_grep(
                &self,
                request: &$crate::contract::GrepRequest,
            ) -> Result<$crate::contract::GrepFlowOutput, $crate::contract::StdError> {
                forward_search!(@either [$($flow_grep)?] $inner(self).flow_grep(request), (self, request))
            }
            fn grep_with_literal(
                &self,
                input: &$crate::contract::GrepInput,
            ) -> Option<Result<$crate::flow::WithLiteral, $crate::contract::StdError>> {
                forward_search!(@either [$($grep_with_literal)?] $inner(self).grep_with_literal(input), (self, input))
            }
            fn flow_glob(
                &self,
                request: &$crate::contract::GlobRequest,
            ) -> Result<$crate::contract::GlobOutput, $crate::contract::StdError> {
                forward_search!(@either [$($flow_glob)?] $inner(self).flow_glob(request), (self, request))
            }
            fn supports(&self, method: $crate::peer::Method) -> bool {
                forward_search!(@either [$($supports)?] $inner(self).supports(method), (self, method))
            }
            fn ground(&self) -> $crate::peer::Ground {
                forward_search!(@either [$($ground)?] $inner(self).ground(), (self))
            }
            fn language(&self) -> Option<String> {
                forward_search!(@either [$($language)?] $inner(self).language(), (self))
            }
            fn health(&self) -> Option<$crate::peer::Health> {
                forward_search!(@either [$($health)?] $inner(self).health(), (self))
            }
        }
    };
}
pub(crate) use forward_search;

// `Arc<dyn Search>` and `Box<dyn Search>` are peers too (the registry hands
// out `Arc`s).
forward_search!(impl[T: Search + ?Sized] Search for Arc<T> => std::ops::Deref::deref);
forward_search!(impl[T: Search + ?Sized] Search for Box<T> => std::ops::Deref::deref);

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

/// A peer under another name (a built-in registered as `rg`): it answers
/// to that name, so its answers, trials and reports say what the registry
/// says; every other method is the inner peer's.
///
/// ```
/// use std::sync::Arc;
/// use lawsuite::peer::{Named, Noop, Search};
/// let peer = Named::wrap("nothing", Arc::new(Noop));
/// assert_eq!(peer.name(), "nothing");
/// ```
pub struct Named {
    name: String,
    inner: Arc<dyn Search>,
}

impl Named {
    /// `peer` answering to `name`; `peer` itself when that is its name.
    pub fn wrap(name: &str, peer: Arc<dyn Search>) -> Arc<dyn Search> {
        if peer.name() == name {
            peer
        } else {
            Arc::new(Named {
                name: name.to_string(),
                inner: peer,
            })
        }
    }
}

impl fmt::Debug for Named {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Named")
            .field("name", &self.name)
            .field("inner", &self.inner.name())
            .finish()
    }
}

impl Named {
    /// The name it answers to.
    fn own_name(&self) -> &str {
        &self.name
    }

    /// The peer it is.
    fn inner(&self) -> &dyn Search {
        &*self.inner
    }
}

forward_search!(impl Search for Named => Named::inner, name = Named::own_name);

/// A built-in peer, named as a registry's `builtin = "…"` names it. A
/// name that is none of them is an error when it is read (a misspelled
/// `builtin` used to become a peer that "cannot run here", skipped, and
/// the run was green).
///
/// ```
/// use lawsuite::peer::Builtin;
/// assert_eq!("ripgrep-walk".parse::<Builtin>(), Ok(Builtin::RipgrepWalk));
/// let err = "portabel".parse::<Builtin>().unwrap_err();
/// assert!(err.to_string().contains("portable, ripgrep, ripgrep-walk, model, noop"));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Builtin {
    /// The in-process reference.
    Portable,
    /// `rg` for the search, lawsuite's walk.
    Ripgrep,
    /// `rg` for the search and the walk.
    RipgrepWalk,
    /// The spec-literal second opinion.
    Model,
    /// A peer that answers nothing (for tests of the harness).
    Noop,
    /// git's own reading of `.gitignore` for the walk (`glob` only).
    Git,
}

impl Builtin {
    /// Every built-in.
    pub const ALL: [Builtin; 6] = [
        Builtin::Portable,
        Builtin::Ripgrep,
        Builtin::RipgrepWalk,
        Builtin::Model,
        Builtin::Noop,
        Builtin::Git,
    ];

    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            Builtin::Portable => "portable",
            Builtin::Ripgrep => "ripgrep",
            Builtin::RipgrepWalk => "ripgrep-walk",
            Builtin::Model => "model",
            Builtin::Noop => "noop",
            Builtin::Git => "git",
        }
    }

    /// Every built-in's name, joined with `, ` (for messages).
    pub fn names() -> String {
        Builtin::ALL.map(Builtin::name).join(", ")
    }
}

impl fmt::Display for Builtin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is not a built-in peer's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownBuiltin(pub String);

impl fmt::Display for UnknownBuiltin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:?} is not a built-in peer; the built-in peers are {}",
            self.0,
            Builtin::names()
        )
    }
}

impl std::error::Error for UnknownBuiltin {}

impl std::str::FromStr for Builtin {
    type Err = UnknownBuiltin;

    fn from_str(name: &str) -> Result<Builtin, UnknownBuiltin> {
        Builtin::ALL
            .into_iter()
            .find(|b| b.name() == name)
            .ok_or_else(|| UnknownBuiltin(name.to_string()))
    }
}

/// A peer as a run, a differential or a benchmark knows it: its registered
/// name, the built-in it is (lawsuite's own expected failures and
/// documented differences for that built-in apply to it), and the peer.
/// The one peer type every runner takes
/// ([`crate::conformance::Engine`], [`crate::kit::real_tree::run`],
/// [`crate::bench::run::run`]).
#[derive(Clone)]
pub struct Subject {
    name: String,
    builtin: Option<Builtin>,
    peer: Arc<dyn Search>,
}

impl std::fmt::Debug for Subject {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Subject")
            .field("name", &self.name)
            .field("builtin", &self.builtin)
            .finish_non_exhaustive()
    }
}

impl Subject {
    /// A peer registered as `name` (not a built-in); its answers are
    /// labelled with that name.
    ///
    /// ```
    /// use lawsuite::peer::Subject;
    /// use lawsuite::portable::Portable;
    ///
    /// let mine = Subject::new("mine", Portable::default());
    /// assert_eq!(mine.name(), "mine");
    /// assert_eq!(mine.builtin(), None);
    /// ```
    pub fn new(name: &str, peer: impl Search + 'static) -> Subject {
        Subject::registered(name, None, Arc::new(peer))
    }

    /// The built-in `builtin`, registered as `name`.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use lawsuite::peer::Subject;
    /// use lawsuite::portable::Portable;
    /// use lawsuite::peer::Builtin;
    ///
    /// let reference = Subject::from_builtin("ours", Builtin::Portable, Arc::new(Portable::default()));
    /// assert_eq!(reference.builtin(), Some(Builtin::Portable));
    /// assert_eq!(reference.peer().name(), "ours");
    /// ```
    pub fn from_builtin(name: &str, builtin: Builtin, peer: Arc<dyn Search>) -> Subject {
        Subject::registered(name, Some(builtin), peer)
    }

    /// A peer registered as `name`, the built-in `builtin` if it is one.
    pub fn registered(name: &str, builtin: Option<Builtin>, peer: Arc<dyn Search>) -> Subject {
        Subject {
            name: name.to_string(),
            builtin,
            peer: Named::wrap(name, peer),
        }
    }

    /// The registered name: trial ids, reports and the project's expected
    /// failures use it.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The built-in it is, if it is one: lawsuite's own expected failures
    /// and documented differences for that built-in apply to it.
    pub fn builtin(&self) -> Option<Builtin> {
        self.builtin
    }

    /// The peer, answering as [`Subject::name`].
    pub fn peer(&self) -> &Arc<dyn Search> {
        &self.peer
    }
}

/// A chosen peer that cannot run here: a run shows it as a skipped peer,
/// a benchmark as a note (its JSON keys are `peer` and `reason`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Unavailable {
    /// Its registered name.
    #[serde(rename = "peer")]
    pub name: String,
    /// Why, with what to do about it.
    #[serde(rename = "reason")]
    pub why: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::call::Call;
    use crate::contract::ErrorCode;

    /// The methods a block of this file defines or forwards (`fn name(`
    /// lines outside comments), in order.
    fn fns_in(source: &str, from: &str, to: &str) -> Vec<String> {
        let start = source.find(from).expect("the block's first line");
        let block = &source[start..];
        let block = &block[..block.find(to).expect("the block's end")];
        block
            .lines()
            .filter_map(|line| line.trim_start().strip_prefix("fn "))
            .map(|rest| {
                rest.split(['(', '<'])
                    .next()
                    .unwrap_or_default()
                    .to_string()
            })
            .collect()
    }

    /// `forward_search!` forwards every method of `Search`, in the trait's
    /// order: a method added to the trait and not to the macro would be
    /// answered by its default in `Arc`, `Box`, `Named` and `Altered`,
    /// whatever the peer inside answers.
    #[test]
    fn the_forwarding_macro_forwards_every_method_of_the_trait() {
        let source = include_str!("peer.rs");
        let declared = fns_in(source, "pub trait Search: Send + Sync {", "\n}\n");
        let forwarded = fns_in(source, "macro_rules! forward_search {", "pub(crate) use");
        assert!(declared.len() >= 13, "{declared:?}");
        assert_eq!(forwarded, declared);
    }

    /// A peer whose every method answers its own way, never the trait's
    /// default.
    struct Probe;

    fn probe_error(method: Method) -> StdError {
        StdError::new(ErrorCode::RequestFailed, format!("probe {method}"))
    }

    impl Search for Probe {
        fn name(&self) -> &str {
            "probe"
        }
        fn version(&self) -> String {
            "probe 1".into()
        }
        fn grep(&self, _: &GrepInput) -> Result<GrepOutput, StdError> {
            Err(probe_error(Method::Grep))
        }
        fn glob(&self, _: &GlobInput) -> Result<GlobOutput, StdError> {
            Err(probe_error(Method::Glob))
        }
        fn read(&self, _: &ReadRequest) -> Result<ReadOutput, StdError> {
            Err(probe_error(Method::FlowRead))
        }
        fn ls(&self, _: &LsRequest) -> Result<LsOutput, StdError> {
            Err(probe_error(Method::FlowLs))
        }
        #[cfg(unix)]
        fn bash(&self, _: &BashRequest) -> Result<BashOutput, StdError> {
            Err(probe_error(Method::FlowBash))
        }
        fn flow_grep(&self, _: &GrepRequest) -> Result<GrepFlowOutput, StdError> {
            Err(probe_error(Method::FlowGrep))
        }
        fn grep_with_literal(&self, _: &GrepInput) -> Option<Result<WithLiteral, StdError>> {
            Some(Err(StdError::new(
                ErrorCode::RequestFailed,
                "probe grep_with_literal",
            )))
        }
        fn flow_glob(&self, _: &GlobRequest) -> Result<GlobOutput, StdError> {
            Err(probe_error(Method::FlowGlob))
        }
        fn supports(&self, _: Method) -> bool {
            true
        }
        fn ground(&self) -> Ground {
            Ground::Shared
        }
        fn language(&self) -> Option<String> {
            Some("probe-lang".into())
        }
        fn health(&self) -> Option<Health> {
            Some(Health {
                faults: 7,
                ..Health::default()
            })
        }
    }

    /// A call of `method` (parameters any peer would take).
    fn call_of(method: Method) -> Call {
        let params = match method {
            Method::Grep => serde_json::to_value(GrepInput::new("x", ".")).unwrap(),
            Method::Glob => serde_json::to_value(GlobInput::new("*", ".")).unwrap(),
            Method::FlowGrep | Method::FlowGlob => serde_json::json!({"pattern": "x"}),
            Method::FlowRead | Method::FlowLs => serde_json::json!({"path": "."}),
            Method::FlowBash => serde_json::json!({"command": "true"}),
        };
        Call::parse(method, params).unwrap()
    }

    /// Every peer that wraps another answers every method as the peer
    /// inside does, but where it says otherwise (its name): `Arc`, `Box`,
    /// `Named`, and `testing::Altered` around any peer, which forwarded 8
    /// of the trait's 13 methods (not `flow_grep`, `flow_glob`, `ground`,
    /// `language` or `health`).
    #[test]
    fn every_wrapper_answers_every_method_as_the_peer_inside() {
        let wrappers: [(&str, Box<dyn Search>); 4] = [
            ("probe", Box::new(Arc::new(Probe))),
            ("probe", Box::new(Box::new(Probe))),
            ("named", Box::new(Named::wrap("named", Arc::new(Probe)))),
            (
                "altered",
                Box::new(crate::testing::Altered::around("altered", Probe)),
            ),
        ];
        for (name, peer) in &wrappers {
            assert_eq!(peer.name(), *name);
            assert_eq!(peer.version(), "probe 1", "{name}");
            assert_eq!(peer.ground(), Ground::Shared, "{name}");
            assert_eq!(peer.language().as_deref(), Some("probe-lang"), "{name}");
            assert_eq!(peer.health().map(|h| h.faults), Some(7), "{name}");
            let both = peer.grep_with_literal(&GrepInput::new("x", "."));
            let refused = both.and_then(Result::err).map(|e| e.message);
            assert_eq!(
                refused.as_deref(),
                Some("probe grep_with_literal"),
                "{name}"
            );
            for method in Method::ALL {
                if method == Method::FlowBash && cfg!(not(unix)) {
                    continue;
                }
                assert!(peer.supports(method), "{name} {method}");
                let answer = call_of(method).run(peer.as_ref()).unwrap_err();
                assert_eq!(answer.message, format!("probe {method}"), "{name}");
            }
        }
    }

    /// The one table gives every method its wire name once: the constant,
    /// `name`, the JSON of a `Method` and of a `Call`, and parsing back.
    #[test]
    fn every_method_has_one_wire_name_everywhere() {
        for method in Method::ALL {
            let name = method.name();
            assert_eq!(name.parse::<Method>(), Ok(method));
            assert_eq!(serde_json::to_value(method).unwrap(), name);
            if method == Method::FlowBash && cfg!(not(unix)) {
                continue;
            }
            let call = serde_json::to_value(call_of(method)).unwrap();
            assert_eq!(call["method"], name);
        }
        assert_eq!(method::FLOW_READ, Method::FlowRead.name());
    }
}
