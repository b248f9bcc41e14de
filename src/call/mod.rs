//! One call of any protocol method, typed: [`Call`] pairs a [`Method`] with
//! its input, and [`Call::run`] is the one dispatcher that sends it to a
//! [`Search`] peer.
//!
//! Method names are strings only at the edges: a law file's `method`, a
//! protocol request, `lawsuite call METHOD PARAMS`. Each edge parses once
//! with [`Call::parse`] and hands on a `Call`; nothing downstream matches
//! on method names again.
//!
//! ```
//! use lawsuite::call::Call;
//! use lawsuite::peer::{Method, Noop};
//!
//! let call = Call::parse(Method::FlowGlob, serde_json::json!({"pattern": "*.rs"}))?;
//! assert_eq!(call.method(), Method::FlowGlob);
//! // Noop refuses every search with the contract's provider_unavailable.
//! let err = call.run(&Noop).unwrap_err();
//! assert_eq!(err.code.as_str(), "provider_unavailable");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::contract::{ErrorCode, GlobInput, GlobRequest, GrepInput, GrepRequest, StdError};
#[cfg(unix)]
use crate::flow::BashRequest;
use crate::flow::{LsRequest, ReadRequest};
use crate::peer::{Method, Search};

mod bounds;
mod budget;
pub use bounds::{Bounds, Overrun, Side};
pub use budget::{Budget, TreeSize};

/// One call: a method and its input.
///
/// In JSON, `{"method": …, "input": …}` with the protocol's method names.
///
/// ```
/// use lawsuite::call::Call;
/// use lawsuite::flow::ReadRequest;
/// let call = Call::Read(ReadRequest::new("/r/a.txt").offset(2));
/// assert_eq!(
///     serde_json::to_string(&call)?,
///     r#"{"method":"flow/read","input":{"path":"/r/a.txt","offset":2}}"#,
/// );
/// assert_eq!(call.rebased("/r", "/tmp/t").root(), "/tmp/t/a.txt");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Call {
    /// `Search.grep`, normalised input.
    Grep(GrepInput),
    /// `Search.glob`, normalised input.
    Glob(GlobInput),
    /// The grep flow on a caller's request.
    FlowGrep(GrepRequest),
    /// The glob flow on a caller's request.
    FlowGlob(GlobRequest),
    /// The `read` flow (read-ls-flows §1).
    Read(ReadRequest),
    /// The `ls` flow (read-ls-flows §2).
    Ls(LsRequest),
    /// The `bash` capture rules (read-ls-flows §4).
    #[cfg(unix)]
    Bash(BashRequest),
}

// A call's JSON names its method as [`Method`] does: the one table of
// wire names (`crate::peer`), not a second list of serde renames.

impl Serialize for Call {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Wire<'a, T> {
            method: Method,
            input: &'a T,
        }
        let method = self.method();
        match self {
            Call::Grep(input) => Wire { method, input }.serialize(serializer),
            Call::Glob(input) => Wire { method, input }.serialize(serializer),
            Call::FlowGrep(input) => Wire { method, input }.serialize(serializer),
            Call::FlowGlob(input) => Wire { method, input }.serialize(serializer),
            Call::Read(input) => Wire { method, input }.serialize(serializer),
            Call::Ls(input) => Wire { method, input }.serialize(serializer),
            #[cfg(unix)]
            Call::Bash(input) => Wire { method, input }.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for Call {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Call, D::Error> {
        #[derive(Deserialize)]
        struct Wire {
            method: Method,
            input: Value,
        }
        let wire = Wire::deserialize(deserializer)?;
        Call::parse(wire.method, wire.input).map_err(serde::de::Error::custom)
    }
}

/// Parameters that do not have the shape of their method's input.
#[derive(Debug)]
pub struct BadParams {
    /// The method.
    pub method: Method,
    /// What serde said, with the field.
    pub message: String,
}

impl std::fmt::Display for BadParams {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the parameters of {} are not valid: {}",
            self.method, self.message
        )
    }
}

impl std::error::Error for BadParams {}

impl Call {
    /// Parse the parameters of `method`.
    pub fn parse(method: Method, params: Value) -> Result<Call, BadParams> {
        fn p<T: serde::de::DeserializeOwned>(
            method: Method,
            params: Value,
        ) -> Result<T, BadParams> {
            serde_json::from_value(params).map_err(|e| BadParams {
                method,
                message: e.to_string(),
            })
        }
        Ok(match method {
            Method::Grep => Call::Grep(p(method, params)?),
            Method::Glob => Call::Glob(p(method, params)?),
            Method::FlowGrep => Call::FlowGrep(p(method, params)?),
            Method::FlowGlob => Call::FlowGlob(p(method, params)?),
            Method::FlowRead => Call::Read(p(method, params)?),
            Method::FlowLs => Call::Ls(p(method, params)?),
            #[cfg(unix)]
            Method::FlowBash => Call::Bash(p(method, params)?),
            #[cfg(not(unix))]
            Method::FlowBash => {
                return Err(BadParams {
                    method,
                    message: "flow/bash runs on unix hosts only".into(),
                });
            }
        })
    }

    /// The method.
    pub fn method(&self) -> Method {
        match self {
            Call::Grep(_) => Method::Grep,
            Call::Glob(_) => Method::Glob,
            Call::FlowGrep(_) => Method::FlowGrep,
            Call::FlowGlob(_) => Method::FlowGlob,
            Call::Read(_) => Method::FlowRead,
            Call::Ls(_) => Method::FlowLs,
            #[cfg(unix)]
            Call::Bash(_) => Method::FlowBash,
        }
    }

    /// Send the call to `peer` and return its answer as JSON, or its typed
    /// failure: the one dispatcher behind laws, plans, regressions, the
    /// protocol server and `lawsuite call`.
    ///
    /// An answer past the call's [`Bounds`] is refused before it becomes
    /// JSON, as `request_failed` with a message saying what it held: it
    /// breaks the contract whatever it says, and a million-match answer
    /// must not cost the harness gigabytes.
    pub fn run(&self, peer: &dyn Search) -> Result<Value, StdError> {
        fn json<T: Serialize>(
            r: Result<T, StdError>,
            check: impl FnOnce(&T) -> Result<(), Overrun>,
        ) -> Result<Value, StdError> {
            let value = r?;
            check(&value).map_err(|why| {
                StdError::fault(ErrorCode::RequestFailed, violation(&why.to_string()))
            })?;
            serde_json::to_value(value).map_err(|e| {
                StdError::fault(
                    ErrorCode::RequestFailed,
                    format!("the answer cannot be written as JSON: {e}"),
                )
            })
        }
        let bounds = self.bounds();
        match self {
            Call::Grep(input) => json(peer.grep(input), |o| {
                bounds.check_grep(&o.matches, &o.files)
            }),
            Call::Glob(input) => json(peer.glob(input), |o| bounds.check("paths", o.paths.len())),
            Call::FlowGrep(request) => json(peer.flow_grep(request), |o| {
                bounds.check_grep(&o.matches, &o.files)
            }),
            Call::FlowGlob(request) => json(peer.flow_glob(request), |o| {
                bounds.check("paths", o.paths.len())
            }),
            Call::Read(request) => json(peer.read(request), |_| Ok(())),
            Call::Ls(request) => json(peer.ls(request), |o| {
                bounds.check("entries", o.entries.len())
            }),
            #[cfg(unix)]
            Call::Bash(request) => json(peer.bash(request), |_| Ok(())),
        }
    }

    /// The most an answer to this call may hold.
    pub fn bounds(&self) -> Bounds {
        match self {
            Call::Grep(input) => Bounds::grep(input),
            Call::Glob(input) => Bounds::glob(input),
            Call::FlowGrep(request) => Bounds::flow_grep(request),
            Call::FlowGlob(request) => Bounds::flow_glob(request),
            Call::Ls(request) => Bounds::ls(request),
            Call::Read(_) => Bounds::NONE,
            #[cfg(unix)]
            Call::Bash(_) => Bounds::NONE,
        }
    }

    /// The root the call searches, the path it reads or lists (or, when
    /// the request gives one, the `cwd` its relative path resolves
    /// against), or the directory a `bash` call runs in (`.` when a request
    /// leaves it unset).
    pub fn root(&self) -> &str {
        match self {
            Call::Grep(i) => &i.root,
            Call::Glob(i) => &i.root,
            Call::FlowGrep(r) => r.root.as_deref().unwrap_or("."),
            Call::FlowGlob(r) => r.root.as_deref().unwrap_or("."),
            // A relative path with a `cwd` is anchored there.
            Call::Read(i) => i.cwd.as_deref().unwrap_or(&i.path),
            Call::Ls(i) => i.cwd.as_deref().unwrap_or(&i.path),
            #[cfg(unix)]
            Call::Bash(r) => r.cwd.as_deref().unwrap_or("."),
        }
    }

    /// The root (path, or working directory) to change; an unset one of a
    /// request is set to `.` first, which is what it means (search-contract
    /// §3: the root defaults to `.`).
    pub fn root_mut(&mut self) -> &mut String {
        match self {
            Call::Grep(i) => &mut i.root,
            Call::Glob(i) => &mut i.root,
            Call::FlowGrep(r) => r.root.get_or_insert_with(|| ".".into()),
            Call::FlowGlob(r) => r.root.get_or_insert_with(|| ".".into()),
            Call::Read(i) => i.cwd.as_mut().unwrap_or(&mut i.path),
            Call::Ls(i) => i.cwd.as_mut().unwrap_or(&mut i.path),
            #[cfg(unix)]
            Call::Bash(r) => r.cwd.get_or_insert_with(|| ".".into()),
        }
    }

    /// The same call with a leading `from` in its root (or path) replaced
    /// by `to`; a call without such a root is unchanged.
    pub fn rebased(&self, from: &str, to: &str) -> Call {
        let mut call = self.clone();
        if !call.root().starts_with(from) {
            return call;
        }
        let root = call.root_mut();
        if let Some(rest) = root.strip_prefix(from) {
            *root = format!("{to}{rest}");
        }
        call
    }
}

/// What the contract's validation makes of a call (search-contract §3,
/// §5): the one question a shrinker asks before it may try a smaller call,
/// since a step that leaves the contract finds another bug, or none.
///
/// ```
/// use lawsuite::call::{Call, Validation};
/// use lawsuite::contract::{GlobInput, GlobRequest};
///
/// assert_eq!(Call::Glob(GlobInput::new("*.ts", "/r")).validation(), Validation::Passes);
/// // A seam call carries what validation hands a peer; an empty glob is
/// // refused before any peer is asked, so it is not a seam call.
/// assert_eq!(Call::Glob(GlobInput::new("", "/r")).validation(), Validation::NotForTheSeam);
/// let refused = Call::FlowGlob(GlobRequest::new("")).validation();
/// assert!(matches!(refused, Validation::Refused(_)), "{refused:?}");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Validation {
    /// A seam call whose input is the normalised one validation hands a
    /// peer, or a flow call validation lets through to the search (`read`,
    /// `ls` and `bash` validate in their own flows, so they always pass
    /// here).
    Passes,
    /// A flow call validation refuses, with the code it refuses with.
    Refused(ErrorCode),
    /// A seam call no flow would send: validation refuses its input, or
    /// would hand a peer a different one.
    NotForTheSeam,
}

impl Call {
    /// What validation makes of this call ([`Validation`]).
    pub fn validation(&self) -> Validation {
        use crate::contract::{normalize_glob, normalize_grep};
        match self {
            Call::Grep(input) => match normalize_grep(&GrepRequest::from(input)) {
                Ok(normalised) if normalised == *input => Validation::Passes,
                _ => Validation::NotForTheSeam,
            },
            Call::Glob(input) => match normalize_glob(&GlobRequest::from(input)) {
                Ok(normalised) if normalised == *input => Validation::Passes,
                _ => Validation::NotForTheSeam,
            },
            Call::FlowGrep(request) => match normalize_grep(request) {
                Ok(_) => Validation::Passes,
                Err(e) => Validation::Refused(e.code),
            },
            Call::FlowGlob(request) => match normalize_glob(request) {
                Ok(_) => Validation::Passes,
                Err(e) => Validation::Refused(e.code),
            },
            Call::Read(_) | Call::Ls(_) => Validation::Passes,
            #[cfg(unix)]
            Call::Bash(_) => Validation::Passes,
        }
    }
}

/// How an answer past its bounds is worded, wherever it is found.
pub fn violation(why: &str) -> String {
    format!("contract violation: the peer {why}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::portable::Portable;

    #[test]
    fn every_method_parses_and_names_itself() {
        for method in Method::ALL {
            let params = match method {
                Method::Grep => serde_json::to_value(GrepInput::new("x", ".")).unwrap(),
                Method::Glob => serde_json::to_value(GlobInput::new("*", ".")).unwrap(),
                Method::FlowGrep | Method::FlowGlob => serde_json::json!({"pattern": "x"}),
                Method::FlowRead | Method::FlowLs => serde_json::json!({"path": "."}),
                Method::FlowBash => serde_json::json!({"command": "true"}),
            };
            let call = Call::parse(method, params).unwrap();
            assert_eq!(call.method(), method);
            let back: Call = serde_json::from_value(serde_json::to_value(&call).unwrap()).unwrap();
            assert_eq!(back, call);
        }
        let err = Call::parse(Method::FlowRead, serde_json::json!({"offset": 1})).unwrap_err();
        assert!(err.to_string().contains("path"), "{err}");
    }

    #[test]
    fn flow_calls_run_the_flow_layer() {
        let err = Call::parse(Method::FlowGrep, serde_json::json!({"pattern": "(?=x)"}))
            .unwrap()
            .run(&Portable::default())
            .unwrap_err();
        assert_eq!(err.code.as_str(), "invalid_pattern");
        let mut call = Call::parse(Method::FlowGlob, serde_json::json!({"pattern": "*"})).unwrap();
        *call.root_mut() = "/r/x".into();
        assert_eq!(call.rebased("/r", "/t").root(), "/t/x");
    }
}
