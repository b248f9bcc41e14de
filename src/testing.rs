//! Peers that are wrong on purpose, for checking that a suite catches
//! them.
//!
//! A conformance suite that passes a correct peer proves little until it
//! is seen to fail a wrong one. [`Altered`] is the reference peer
//! (`portable`, one thread), or any peer ([`Altered::around`]), with one
//! or more of its answers replaced or changed by a closure: wrong on one
//! method, wrong on every second call, refusing a method, answering past
//! the call's bounds, or answering only some methods. lawsuite's own tests
//! build their wrong peers with it, and a peer author can do the same, to
//! their own peer, to check that their laws and regressions bite.
//!
//! ```
//! use std::sync::Arc;
//! use std::sync::atomic::{AtomicUsize, Ordering};
//! use lawsuite::conformance::{Engine, Subject, Verdict};
//! use lawsuite::kit::Generator;
//! use lawsuite::peer::Ground;
//! use lawsuite::portable::Portable;
//! use lawsuite::testing::Altered;
//!
//! // Wrong on every second glob: its total is off by 1,000.
//! let calls = Arc::new(AtomicUsize::new(0));
//! let wrong = Altered::new("every-second").on_glob(move |_, answer| {
//!     let mut answer = answer?;
//!     if calls.fetch_add(1, Ordering::SeqCst) % 2 == 1 {
//!         answer.total += 1000;
//!     }
//!     Ok(answer)
//! });
//! let mut engine = Engine::new(
//!     Subject::new("portable", Portable::default()),
//!     vec![Subject::new("every-second", wrong)],
//! );
//! engine.add_seeds(Generator::Smthrs, Ground::Shared, &[4], None);
//! let outcome = engine.run_trial(&engine.trials()[0]);
//! assert!(matches!(outcome.verdict, Verdict::Fail { .. }), "{outcome:?}");
//! ```

use std::fmt;
use std::sync::Arc;

use crate::contract::{
    ErrorCode, GlobInput, GlobOutput, GlobRequest, GrepFlowOutput, GrepInput, GrepOutput,
    GrepRequest, StdError,
};
use crate::peer::{Method, Search, forward_search};
use crate::portable::Portable;

/// What an [`Altered`] peer makes of one `grep` call: the input, and the
/// answer `portable` gave it.
type GrepAlteration =
    dyn Fn(&GrepInput, Result<GrepOutput, StdError>) -> Result<GrepOutput, StdError> + Send + Sync;

/// What an [`Altered`] peer makes of one `glob` call.
type GlobAlteration =
    dyn Fn(&GlobInput, Result<GlobOutput, StdError>) -> Result<GlobOutput, StdError> + Send + Sync;

/// The reference peer (or any peer) with some answers altered (the
/// [module documentation](self) has an example). Every other method of
/// [`Search`] answers as the peer it alters does (`portable` on one thread,
/// unless [`Altered::around`] says another), so the peer is right
/// everywhere but where it is told to be wrong.
pub struct Altered {
    name: String,
    inner: Arc<dyn Search>,
    grep: Option<Box<GrepAlteration>>,
    glob: Option<Box<GlobAlteration>>,
    only: Option<Vec<Method>>,
}

impl Altered {
    /// A peer named `name` that answers as `portable` does, until told
    /// otherwise.
    pub fn new(name: impl Into<String>) -> Altered {
        Altered::around(name, Portable::with_threads(1))
    }

    /// A peer named `name` that answers as `peer` does, until told
    /// otherwise: a peer author's own peer, made wrong on purpose.
    ///
    /// ```
    /// use lawsuite::contract::GlobInput;
    /// use lawsuite::peer::{Noop, Search};
    /// use lawsuite::testing::Altered;
    ///
    /// let peer = Altered::around("quiet-noop", Noop).on_glob(|_, _| Ok(Default::default()));
    /// assert_eq!(peer.name(), "quiet-noop");
    /// assert!(peer.glob(&GlobInput::new("*", "."))?.paths.is_empty());
    /// // Unaltered, it is `Noop`.
    /// assert!(peer.grep(&lawsuite::contract::GrepInput::new("x", ".")).is_err());
    /// # Ok::<(), lawsuite::contract::StdError>(())
    /// ```
    pub fn around(name: impl Into<String>, peer: impl Search + 'static) -> Altered {
        Altered {
            name: name.into(),
            inner: Arc::new(peer),
            grep: None,
            glob: None,
            only: None,
        }
    }

    /// Every `grep` answer goes through `alter`, which gets the input and
    /// `portable`'s answer and returns the peer's.
    pub fn on_grep(
        mut self,
        alter: impl Fn(&GrepInput, Result<GrepOutput, StdError>) -> Result<GrepOutput, StdError>
        + Send
        + Sync
        + 'static,
    ) -> Altered {
        self.grep = Some(Box::new(alter));
        self
    }

    /// Every `glob` answer goes through `alter`, as [`Altered::on_grep`].
    pub fn on_glob(
        mut self,
        alter: impl Fn(&GlobInput, Result<GlobOutput, StdError>) -> Result<GlobOutput, StdError>
        + Send
        + Sync
        + 'static,
    ) -> Altered {
        self.glob = Some(Box::new(alter));
        self
    }

    /// The peer answers only `methods` ([`Search::supports`]); the engine
    /// skips the calls of the others and says so.
    ///
    /// ```
    /// use lawsuite::peer::{Method, Search};
    /// use lawsuite::testing::Altered;
    /// let grep_only = Altered::new("grep-only").only(&[Method::Grep]);
    /// assert!(grep_only.supports(Method::Grep) && !grep_only.supports(Method::Glob));
    /// ```
    pub fn only(mut self, methods: &[Method]) -> Altered {
        self.only = Some(methods.to_vec());
        self
    }
}

/// A `request_failed` error saying `message`, for a peer that refuses.
///
/// ```
/// use lawsuite::contract::ErrorCode;
/// use lawsuite::peer::Search;
/// use lawsuite::testing::{Altered, refusal};
/// let refuses = Altered::new("refuses-grep").on_grep(|_, _| Err(refusal("no")));
/// let input = lawsuite::contract::GrepInput::new("x", ".");
/// assert_eq!(refuses.grep(&input).unwrap_err().code, ErrorCode::RequestFailed);
/// ```
pub fn refusal(message: &str) -> StdError {
    StdError::new(ErrorCode::RequestFailed, message)
}

impl fmt::Debug for Altered {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Altered")
            .field("name", &self.name)
            .field("grep altered", &self.grep.is_some())
            .field("glob altered", &self.glob.is_some())
            .field("only", &self.only)
            .finish()
    }
}

impl Altered {
    fn inner(&self) -> &dyn Search {
        &*self.inner
    }

    fn own_name(&self) -> &str {
        &self.name
    }

    fn altered_grep(&self, input: &GrepInput) -> Result<GrepOutput, StdError> {
        let answer = self.inner.grep(input);
        match &self.grep {
            Some(alter) => alter(input, answer),
            None => answer,
        }
    }

    fn altered_glob(&self, input: &GlobInput) -> Result<GlobOutput, StdError> {
        let answer = self.inner.glob(input);
        match &self.glob {
            Some(alter) => alter(input, answer),
            None => answer,
        }
    }

    /// The flow runs over the altered `grep` when it is altered, so a
    /// wrong seam is wrong through the flow too; else it is the peer's own
    /// flow (an external peer may have one).
    fn altered_flow_grep(&self, request: &GrepRequest) -> Result<GrepFlowOutput, StdError> {
        match &self.grep {
            Some(_) => crate::flow::grep(|input| self.altered_grep(input), request),
            None => self.inner.flow_grep(request),
        }
    }

    /// A peer whose `grep` is altered answers the regex and its literal
    /// retry apart, each through the altered `grep`: the inner peer's one
    /// walk for both would answer as the peer unaltered.
    fn altered_grep_with_literal(
        &self,
        input: &GrepInput,
    ) -> Option<Result<crate::flow::WithLiteral, StdError>> {
        match &self.grep {
            Some(_) => None,
            None => self.inner.grep_with_literal(input),
        }
    }

    /// As [`Altered::altered_flow_grep`], for `glob`.
    fn altered_flow_glob(&self, request: &GlobRequest) -> Result<GlobOutput, StdError> {
        match &self.glob {
            Some(_) => crate::flow::glob(|input| self.altered_glob(input), request),
            None => self.inner.flow_glob(request),
        }
    }

    fn altered_supports(&self, method: Method) -> bool {
        match &self.only {
            Some(methods) => methods.contains(&method),
            None => self.inner.supports(method),
        }
    }
}

forward_search!(
    impl Search for Altered => Altered::inner,
    name = Altered::own_name,
    grep = Altered::altered_grep,
    glob = Altered::altered_glob,
    flow_grep = Altered::altered_flow_grep,
    grep_with_literal = Altered::altered_grep_with_literal,
    flow_glob = Altered::altered_flow_glob,
    supports = Altered::altered_supports,
);

/// An outcome of `peer` on the law item `item` (`law::…`), as a reporter
/// or an expectations update receives one: for tests of what reads
/// outcomes, without running a trial.
///
/// ```
/// use lawsuite::conformance::{Kind, Verdict};
/// let o = lawsuite::testing::outcome(Kind::Law, "mine", "law::glob::x::y", Verdict::Pass);
/// assert_eq!(o.id, "law::glob::x::y::mine");
/// ```
///
/// # Panics
///
/// When `item` is not an item id of the grammar: it is a test's own text.
pub fn outcome(
    kind: crate::conformance::Kind,
    peer: &str,
    item: &str,
    verdict: crate::conformance::Verdict,
) -> crate::conformance::Outcome {
    crate::conformance::Outcome {
        id: item
            .parse::<crate::conformance::ItemId>()
            .expect("an item id of the grammar (law::…, regression::…, seed::…)")
            .on(peer),
        item: item.into(),
        kind,
        peer: Some(peer.into()),
        spec: None,
        verdict,
        documented: Default::default(),
        seconds: 0.0,
        compared: 0,
    }
}

/// How `rg` is run where the process's `LAWSUITE_RG*` variables say (the
/// defaults overlaid with [`Environment::read`](crate::environment::Environment::read)),
/// for tests and benchmarks that make a `ripgrep` peer themselves: with
/// `LAWSUITE_RG` set and no `rg` on `PATH`, [`Ripgrep::default`](crate::ripgrep::Ripgrep)
/// finds none.
///
/// ```
/// use lawsuite::ripgrep::Ripgrep;
/// let rg = Ripgrep::with_options(lawsuite::testing::rg_options()?);
/// # let _ = rg;
/// # Ok::<(), Vec<lawsuite::environment::EnvError>>(())
/// ```
pub fn rg_options() -> Result<crate::ripgrep::RgOptions, Vec<crate::environment::EnvError>> {
    let env = crate::environment::Environment::read()?;
    Ok(crate::ripgrep::RgOptions::default().overlay(&env))
}
