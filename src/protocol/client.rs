//! The harness side of the protocol: [`ExternalPeer`], a [`Search`] backed
//! by a child process.
//!
//! The process is started on first use (the handshake happens then), and
//! every call is one request line and one response line, under a per-call
//! timeout. Calls are serialised: a peer answers one request at a time.
//!
//! What can go wrong, and what happens then:
//!
//! | the peer… | fault | the call answers |
//! | --- | --- | --- |
//! | does not answer within the timeout | [`FaultKind::Timeout`] | `timeout` |
//! | exits, closes stdout, cannot be started | [`FaultKind::Crash`] | `request_failed` |
//! | prints a non-JSON line, a wrong id, a line over the cap, a malformed answer (a `null` anywhere in a result included), an answer past its call's [`Bounds`] (more matches than its limit) | [`FaultKind::ProtocolViolation`] | `request_failed` |
//! | answers a JSON-RPC error that is not a contract failure | [`FaultKind::ErrorResponse`] | `request_failed` |
//! | shares no protocol version with the harness, or declares a method the protocol does not have | [`FaultKind::Incompatible`] | `provider_unavailable` |
//!
//! A response line is read once into one buffer and parsed from it: the
//! envelope borrows the result's text, which is deserialised straight into
//! the typed output, so a large answer costs the line and the output, not
//! a `Value` tree besides (a 63 MB line cost 2.4 GB that way).
//!
//! Every fault is kept in a log ([`ExternalPeer::faults`]) with the tail of
//! the process's stderr. After a timeout, crash or protocol violation (a
//! malformed result included) the process is killed and reaped at once, and the next call starts a new
//! one after a back-off that doubles with each fault in a row (50 ms up
//! to 2 s by default); after [`Backoff::give_up_after`] faults in a row
//! without a good answer between them, or once incompatible, the peer is
//! not restarted again and every call answers the last fault at once. So
//! one broken peer costs a run seconds, not hours, and the run goes on.
//!
//! Dropping an [`ExternalPeer`] asks the process to `shutdown`, closes its
//! stdin, and kills and reaps it if it has not exited within a second: no
//! zombie is left behind. On Unix each peer runs in a process group of its
//! own, and whenever the harness ends a peer it ends the group too (SIGTERM,
//! then SIGKILL after half a second): a launcher such as
//! `sh -c 'helper & exec peer'` leaves no grandchild running.

use std::collections::VecDeque;
use std::fmt;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;
use tokio::runtime::Runtime;

use super::fault::Failure;
pub use super::fault::{CallError, Fault, FaultKind, StartError};
use super::messages::InitializeParams;
use super::messages::{
    Id, InitializeResult, JSONRPC, NO_COMMON_VERSION, Request, RpcError, VersionRange,
};
#[cfg(unix)]
use super::process::live_groups;
pub use super::process::{Backoff, PeerConfig, stop_all_peers};
use super::process::{Process, STOPPING, exchange};
use super::{PROTOCOL, method, undeclared};
use crate::call::{Bounds, violation};
use crate::contract::{
    ErrorCode, GlobInput, GlobOutput, GlobRequest, GrepFlowOutput, GrepInput, GrepOutput,
    GrepRequest, StdError,
};
#[cfg(unix)]
use crate::flow::{BashOutput, BashRequest};
use crate::flow::{LsOutput, LsRequest, ReadOutput, ReadRequest};
use crate::peer::{Ground, Health, Method, Search};

/// What an [`ExternalPeer`] keeps between calls, under its lock.
#[derive(Default)]
pub(super) struct State {
    pub(super) process: Option<Process>,
    pub(super) handshake: Option<InitializeResult>,
    pub(super) faults: VecDeque<Fault>,
    pub(super) fault_count: usize,
    pub(super) in_a_row: u32,
    pub(super) restart_at: Option<Instant>,
    /// Set once the peer is not restarted any more: every call answers it.
    pub(super) stopped: Option<Fault>,
    pub(super) next_id: Id,
    pub(super) spawned: Vec<u32>,
}

/// An external peer: a child process spoken to over the protocol.
///
/// Cheap to create: nothing runs until the first call (or
/// [`ExternalPeer::handshake`]).
pub struct ExternalPeer {
    pub(super) config: PeerConfig,
    pub(super) runtime: Runtime,
    state: Mutex<State>,
}

impl fmt::Debug for ExternalPeer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ExternalPeer")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

// Starting, failing, restarting and ending the process (`shutdown`
// included) are the second `impl ExternalPeer`, further down this file;
// the process itself (spawning, framing its lines) is `process.rs`.
impl ExternalPeer {
    /// A peer for `config`. Fails only when the command is empty or the
    /// I/O runtime cannot be built.
    pub fn new(config: PeerConfig) -> Result<ExternalPeer, StartError> {
        if config.command.is_empty() {
            return Err(StartError::EmptyCommand {
                peer: config.name.clone(),
            });
        }
        // One worker thread drains stderr while no call is running, so a
        // chatty peer never blocks on a full pipe between calls.
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name(format!("peer-{}", config.name))
            .enable_io()
            .enable_time()
            .build()
            .map_err(|source| StartError::Runtime {
                peer: config.name.clone(),
                source,
            })?;
        Ok(ExternalPeer {
            config,
            runtime,
            state: Mutex::new(State {
                next_id: 1,
                ..State::default()
            }),
        })
    }

    /// The configuration.
    pub fn config(&self) -> &PeerConfig {
        &self.config
    }

    /// Start the process if needed and return its handshake.
    pub fn handshake(&self) -> Result<InitializeResult, Fault> {
        let mut state = self.lock();
        self.ensure_running(&mut state)?;
        state.handshake.clone().ok_or_else(|| {
            self.fault(
                FaultKind::Incompatible,
                method::INITIALIZE,
                "no handshake".into(),
            )
        })
    }

    /// Whether the peer lists `method` in its capabilities (`true` when the
    /// handshake fails, so the call is made and its fault reported).
    pub fn declares(&self, method: &str) -> bool {
        match self.handshake() {
            Ok(h) => h.capabilities.methods.iter().any(|m| m == method),
            Err(_) => true,
        }
    }

    /// The fault log, oldest first (at most the last 256).
    pub fn faults(&self) -> Vec<Fault> {
        self.lock().faults.iter().cloned().collect()
    }

    /// How many faults happened in all.
    pub fn fault_count(&self) -> usize {
        self.lock().fault_count
    }

    /// The id of the running process, if one is running.
    pub fn pid(&self) -> Option<u32> {
        self.lock().process.as_ref().and_then(|p| p.pid)
    }

    /// The ids of every process started so far (for zombie checks).
    pub fn spawned_pids(&self) -> Vec<u32> {
        self.lock().spawned.clone()
    }

    /// One request, raw: `params` out, `result` back. Undeclared methods are
    /// sent too; [`Search`] methods check the capabilities first.
    pub fn call(&self, method: &str, params: Value) -> Result<Value, CallError> {
        self.call_with(method, params, |raw| {
            serde_json::from_str(raw.get()).map_err(BadResult::Unreadable)
        })
    }

    /// One request whose result `decode` turns into a `T`. A result it
    /// refuses is a protocol violation, handled like every other: the
    /// process is killed and reaped, and the next call starts a new one.
    fn call_with<T>(
        &self,
        method: &str,
        params: Value,
        decode: impl FnOnce(&RawValue) -> Result<T, BadResult>,
    ) -> Result<T, CallError> {
        let mut state = self.lock();
        self.ensure_running(&mut state).map_err(CallError::Fault)?;
        let within = self.config.timeout;
        let reply = match self.exchange(&mut state, method, params, within) {
            Ok(reply) => reply,
            Err(failure) => return Err(CallError::Fault(self.fail(&mut state, method, failure))),
        };
        let answer = match reply.parse() {
            Ok(answer) => answer,
            Err(failure) => return Err(CallError::Fault(self.fail(&mut state, method, failure))),
        };
        match answer {
            Ok(raw) => match decode(raw) {
                Ok(value) => {
                    state.in_a_row = 0;
                    Ok(value)
                }
                Err(bad) => {
                    let failure = (FaultKind::ProtocolViolation, bad.to_string());
                    Err(CallError::Fault(self.fail(&mut state, method, failure)))
                }
            },
            Err(error) => {
                state.in_a_row = 0;
                if error.contract_failure().is_none() {
                    let fault = self.fault(
                        FaultKind::ErrorResponse,
                        method,
                        format!(
                            "answered JSON-RPC error {} ({}) instead of a result or a contract failure",
                            error.code, error.message
                        ),
                    );
                    log(&mut state, fault);
                }
                Err(CallError::Rpc(error))
            }
        }
    }

    pub(super) fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock leaves the state usable: at worst a
        // process to restart.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(super) fn fault(&self, kind: FaultKind, method: &str, message: String) -> Fault {
        Fault {
            peer: self.config.name.clone(),
            kind,
            method: method.to_string(),
            message,
            stderr_tail: String::new(),
            pid: None,
        }
    }

    /// One request and its response line on the running process, answered
    /// `within` (the call's timeout, or the handshake's); [`Reply::parse`]
    /// checks the line.
    pub(super) fn exchange(
        &self,
        state: &mut State,
        method: &str,
        params: Value,
        within: Duration,
    ) -> Result<Reply, Failure> {
        let id = state.next_id;
        state.next_id += 1;
        let Some(process) = state.process.as_mut() else {
            return Err((FaultKind::Crash, "no process is running".to_string()));
        };
        let request = Request::new(id, method, params);
        let cap = self.config.max_line_bytes;
        let line = self.runtime.block_on(async {
            match tokio::time::timeout(within, exchange(process, &request, cap)).await {
                Ok(answer) => answer,
                Err(_) => Err((
                    FaultKind::Timeout,
                    format!("no answer within {} ms", within.as_millis()),
                )),
            }
        })?;
        Ok(Reply { line, id })
    }

    fn search<I: Serialize, O: DeserializeOwned>(
        &self,
        method: &str,
        input: &I,
        bounds: Bounds,
    ) -> Result<O, StdError> {
        // One handshake attempt per call: a peer that cannot start answers
        // its fault, it is not started twice.
        match self.handshake() {
            Err(fault) => return Err(fault.to_std_error()),
            Ok(h) if !h.capabilities.methods.iter().any(|m| m == method) => {
                return Err(undeclared(&self.config.name, method));
            }
            Ok(_) => {}
        }
        let params = serde_json::to_value(input)
            .map_err(|e| StdError::fault(ErrorCode::RequestFailed, e.to_string()))?;
        let decode = |raw: &RawValue| {
            let text = raw.get();
            // Counted before anything is built: an answer past its call's
            // bounds costs its line, not its size many times over.
            bounds.check_json(text).map_err(BadResult::Overrun)?;
            // The protocol: optional keys are omitted, never `null`. Read as
            // absent, a `null` would count as agreeing with a peer that
            // omits the key.
            if let Some(at) = find_null(text) {
                return Err(BadResult::Null {
                    method: method.to_string(),
                    at,
                });
            }
            serde_json::from_str::<O>(text).map_err(|error| BadResult::NotOutput {
                method: method.to_string(),
                error,
            })
        };
        match self.call_with(method, params, decode) {
            Ok(output) => Ok(output),
            Err(CallError::Rpc(error)) => Err(error.contract_failure().unwrap_or_else(|| {
                StdError::fault(
                    ErrorCode::RequestFailed,
                    format!(
                        "peer {} answered {method} with JSON-RPC error {}: {}",
                        self.config.name, error.code, error.message
                    ),
                )
            })),
            Err(CallError::Fault(fault)) => Err(fault.to_std_error()),
        }
    }
}

/// A result a peer answered that the client refuses: a protocol
/// violation, its sentence the fault's message.
#[derive(Debug)]
enum BadResult {
    /// Not JSON the call can read.
    Unreadable(serde_json::Error),
    /// More than the call allows.
    Overrun(crate::call::Overrun),
    /// A `null` where the protocol omits a key.
    Null { method: String, at: usize },
    /// JSON, but not the method's output.
    NotOutput {
        method: String,
        error: serde_json::Error,
    },
}

impl fmt::Display for BadResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BadResult::Unreadable(e) => write!(f, "answered an unreadable result: {e}"),
            BadResult::Overrun(why) => f.write_str(&violation(&why.to_string())),
            BadResult::Null { method, at } => write!(
                f,
                "answered {method} with null at byte {at} of its result; optional keys are omitted, never null"
            ),
            BadResult::NotOutput { method, error } => write!(
                f,
                "answered a result that is not a {method} output: {error}"
            ),
        }
    }
}

impl Drop for ExternalPeer {
    fn drop(&mut self) {
        self.shutdown();
    }
}

impl Search for ExternalPeer {
    fn name(&self) -> &str {
        &self.config.name
    }

    fn version(&self) -> String {
        match self.handshake() {
            Ok(h) => h.peer.version,
            Err(fault) => format!("unknown ({})", fault.message),
        }
    }

    fn grep(&self, input: &GrepInput) -> Result<GrepOutput, StdError> {
        self.search(method::GREP, input, Bounds::grep(input))
    }

    fn glob(&self, input: &GlobInput) -> Result<GlobOutput, StdError> {
        self.search(method::GLOB, input, Bounds::glob(input))
    }

    fn read(&self, input: &ReadRequest) -> Result<ReadOutput, StdError> {
        self.search(method::FLOW_READ, input, Bounds::NONE)
    }

    fn ls(&self, input: &LsRequest) -> Result<LsOutput, StdError> {
        self.search(method::FLOW_LS, input, Bounds::ls(input))
    }

    #[cfg(unix)]
    fn bash(&self, input: &BashRequest) -> Result<BashOutput, StdError> {
        self.search(method::FLOW_BASH, input, Bounds::NONE)
    }

    /// A declared `flow/grep` is sent to the peer, whose own flow layer
    /// answers; otherwise lawsuite's flow layer runs over its `grep`.
    fn flow_grep(&self, request: &GrepRequest) -> Result<GrepFlowOutput, StdError> {
        if self.declares(method::FLOW_GREP) {
            return self.search(method::FLOW_GREP, request, Bounds::flow_grep(request));
        }
        crate::flow::grep(|input| self.grep(input), request)
    }

    /// As [`ExternalPeer::flow_grep`], for `flow/glob`.
    fn flow_glob(&self, request: &GlobRequest) -> Result<GlobOutput, StdError> {
        if self.declares(method::FLOW_GLOB) {
            return self.search(method::FLOW_GLOB, request, Bounds::flow_glob(request));
        }
        crate::flow::glob(|input| self.glob(input), request)
    }

    /// What the handshake declares; `flow/grep` and `flow/glob` also when
    /// only their seam method is declared (lawsuite's flow layer runs them).
    fn supports(&self, method: Method) -> bool {
        self.declares(method.name())
            || (method.seam() != method && self.declares(method.seam().name()))
    }

    /// The handshake's `capabilities.ground`; [`Ground::Full`] when there is
    /// no handshake, so the peer is asked and its fault reported.
    fn ground(&self) -> Ground {
        self.handshake()
            .map_or(Ground::Full, |h| h.capabilities.ground)
    }

    fn language(&self) -> Option<String> {
        self.handshake().ok().and_then(|h| h.peer.language)
    }

    fn health(&self) -> Option<Health> {
        let state = self.lock();
        Some(Health {
            faults: state.fault_count,
            recent: state
                .faults
                .iter()
                .rev()
                .take(3)
                .rev()
                .map(ToString::to_string)
                .collect(),
            stopped: state.stopped.as_ref().map(ToString::to_string),
        })
    }
}

/// The handshake result, checked.
pub(super) fn check_handshake(raw: &RawValue) -> Result<InitializeResult, Failure> {
    let handshake: InitializeResult = serde_json::from_str(raw.get()).map_err(|e| {
        (
            FaultKind::ProtocolViolation,
            format!("answered initialize with a result that is not an initialize result: {e}"),
        )
    })?;
    if !PROTOCOL.contains(handshake.protocol) {
        return Err((
            FaultKind::Incompatible,
            format!(
                "chose protocol version {}, which the harness does not speak (it speaks {PROTOCOL})",
                handshake.protocol
            ),
        ));
    }
    // A method the harness does not know is a peer built for another
    // protocol (or a typo): accepting it silently would skip its calls.
    if let Some(unknown) = handshake
        .capabilities
        .methods
        .iter()
        .find(|m| m.parse::<Method>().is_err())
    {
        return Err((
            FaultKind::Incompatible,
            format!(
                "declared the method {unknown:?}, which protocol {} does not have (it has {})",
                handshake.protocol,
                Method::ALL.map(Method::name).join(", ")
            ),
        ));
    }
    Ok(handshake)
}

/// An error answer to `initialize`.
pub(super) fn handshake_error(error: &RpcError) -> Failure {
    if error.code == NO_COMMON_VERSION {
        let theirs = error
            .data
            .clone()
            .and_then(|d| serde_json::from_value::<VersionRange>(d).ok())
            .map_or_else(|| "an unstated range".to_string(), |r| r.to_string());
        return (
            FaultKind::Incompatible,
            format!(
                "no common protocol version: the harness speaks {PROTOCOL}, the peer speaks {theirs} ({})",
                error.message
            ),
        );
    }
    (
        FaultKind::Incompatible,
        format!(
            "refused initialize with JSON-RPC error {}: {}",
            error.code, error.message
        ),
    )
}

/// A response line to request `id`, not yet checked.
pub(super) struct Reply {
    line: Vec<u8>,
    id: Id,
}

impl Reply {
    /// The checked response: its result's text (borrowed from the line) or
    /// its JSON-RPC error.
    pub(super) fn parse(&self) -> Result<Result<&RawValue, RpcError>, Failure> {
        parse_response(&self.line, self.id)
    }
}

/// The envelope of a response, borrowing from its line: the result stays
/// text until it is deserialised into its type.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(default, borrow)]
    jsonrpc: Option<std::borrow::Cow<'a, str>>,
    #[serde(default)]
    id: Option<Value>,
    #[serde(default, borrow, deserialize_with = "present")]
    result: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    error: Option<&'a RawValue>,
}

/// A key that is there, `null` included (plain `Option` reads `null` as
/// absent, and `"result": null` is the answer to `shutdown`).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(d).map(Some)
}

/// A response line for request `id`, checked.
fn parse_response(bytes: &[u8], id: Id) -> Result<Result<&RawValue, RpcError>, Failure> {
    let violation = |what: String| (FaultKind::ProtocolViolation, what);
    let envelope: Envelope<'_> = serde_json::from_slice(bytes).map_err(|e| {
        violation(if e.is_data() {
            format!(
                "printed JSON that is not a response object: {}",
                preview(bytes)
            )
        } else {
            format!(
                "printed a line that is not JSON on stdout: {}",
                preview(bytes)
            )
        })
    })?;
    if envelope.jsonrpc.as_deref() != Some(JSONRPC) {
        return Err(violation(format!(
            "printed a response without \"jsonrpc\":\"2.0\": {}",
            preview(bytes)
        )));
    }
    let got = envelope.id.unwrap_or(Value::Null);
    if got.as_u64() != Some(id) {
        return Err(violation(format!(
            "answered id {got} while request {id} was outstanding"
        )));
    }
    match (envelope.result, envelope.error) {
        (Some(result), None) => Ok(Ok(result)),
        (None, Some(error)) => match serde_json::from_str::<RpcError>(error.get()) {
            Ok(error) => Ok(Err(error)),
            Err(e) => Err(violation(format!("answered a malformed error object: {e}"))),
        },
        _ => Err(violation(
            "answered a response with both or neither of result and error".to_string(),
        )),
    }
}

/// Byte offset of the first `null` outside strings in JSON text that
/// serde_json accepts (or `None`). Outside strings, `n` only starts `null`:
/// the other literals are `true` and `false`, and numbers have no `n`.
fn find_null(json: &str) -> Option<usize> {
    let b = json.as_bytes();
    let mut at = 0;
    loop {
        // Outside a string: the next `"` opens one, the next `n` is a null.
        let next = at + memchr::memchr2(b'"', b'n', &b[at..])?;
        if b[next] == b'n' {
            return Some(next);
        }
        // Inside: skip to the closing `"`, stepping over escapes.
        at = next + 1;
        loop {
            let stop = at + memchr::memchr2(b'"', b'\\', b.get(at..)?)?;
            if b[stop] == b'"' {
                at = stop + 1;
                break;
            }
            at = stop + 2;
        }
    }
}

/// The start of a line, for messages.
fn preview(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(120)]).into_owned();
    if bytes.len() > 120 {
        format!("{text:?}…")
    } else {
        format!("{text:?}")
    }
}

impl ExternalPeer {
    /// Ask the process to exit (`shutdown`, then end of stdin), and kill and
    /// reap it if it has not within a second. The next call starts a new one.
    pub fn shutdown(&self) {
        let mut state = self.lock();
        let Some(mut process) = state.process.take() else {
            return;
        };
        let id = state.next_id;
        state.next_id += 1;
        let grace = self.config.timeout.min(Duration::from_secs(1));
        self.runtime.block_on(async {
            let request = Request::new(id, method::SHUTDOWN, Value::Null);
            let _ = tokio::time::timeout(grace, exchange(&mut process, &request, 4096)).await;
            process.stdin = None;
            let _ = tokio::time::timeout(grace, process.child.wait()).await;
        });
        process.reap(&self.runtime, true);
    }

    /// Start and handshake a process unless one is running.
    pub(super) fn ensure_running(&self, state: &mut State) -> Result<(), Fault> {
        if state.process.is_some() {
            return Ok(());
        }
        if let Some(stopped) = &state.stopped {
            return Err(stopped.clone());
        }
        if let Some(at) = state.restart_at.take() {
            std::thread::sleep(at.saturating_duration_since(Instant::now()));
        }
        // The check, the spawn and the registration under one lock, which
        // `stop_all_peers` takes to set `STOPPING`: a peer started while an
        // interrupted command exits is then either known to it (and ended)
        // or never started, not orphaned.
        #[cfg(unix)]
        let mut groups = live_groups();
        if STOPPING.load(std::sync::atomic::Ordering::SeqCst) {
            let message = "the run is stopping: no peer is started again".to_string();
            return Err(self.fault(FaultKind::Crash, method::INITIALIZE, message));
        }
        let process = match Process::spawn(&self.config, &self.runtime) {
            Ok(p) => p,
            Err(why) => {
                #[cfg(unix)]
                drop(groups);
                let fault = self.fault(FaultKind::Crash, method::INITIALIZE, why.to_string());
                return Err(self.record(state, fault));
            }
        };
        if let Some(pid) = process.pid {
            state.spawned.push(pid);
            #[cfg(unix)]
            groups.insert(pid);
        }
        #[cfg(unix)]
        drop(groups);
        state.process = Some(process);
        let params =
            serde_json::to_value(InitializeParams { protocol: PROTOCOL }).unwrap_or(Value::Null);
        let checked = self
            .exchange(
                state,
                method::INITIALIZE,
                params,
                self.config.handshake_timeout,
            )
            .and_then(|reply| match reply.parse()? {
                Ok(raw) => check_handshake(raw),
                Err(error) => Err(handshake_error(&error)),
            });
        match checked {
            Ok(handshake) => {
                state.handshake = Some(handshake);
                Ok(())
            }
            Err(failure) => Err(self.fail(state, method::INITIALIZE, failure)),
        }
    }

    /// A fault of the running process: reap it, log the fault, schedule the
    /// restart, and return the fault.
    pub(super) fn fail(&self, state: &mut State, method: &str, (kind, message): Failure) -> Fault {
        let mut fault = self.fault(kind, method, message);
        if let Some(process) = state.process.take() {
            fault.pid = process.pid;
            // A crash: let the process finish dying so its status and last
            // words are known. Anything else: kill at once.
            let (status, tail) = process.reap(&self.runtime, kind != FaultKind::Crash);
            if kind == FaultKind::Crash
                && let Some(status) = status
            {
                fault.message.push_str(&format!(" ({status})"));
            }
            fault.stderr_tail = tail;
        }
        state.handshake = None;
        self.record(state, fault)
    }

    /// Log a fault and decide about restarting.
    fn record(&self, state: &mut State, fault: Fault) -> Fault {
        state.in_a_row += 1;
        log(state, fault.clone());
        let give_up = state.in_a_row >= self.config.backoff.give_up_after.max(1);
        if fault.kind == FaultKind::Incompatible || give_up {
            let mut stopped = fault.clone();
            if fault.kind != FaultKind::Incompatible {
                stopped.message = format!(
                    "not restarted after {} faults in a row; the last: {}",
                    state.in_a_row, fault.message
                );
            }
            state.stopped = Some(stopped);
        } else {
            state.restart_at = Some(Instant::now() + self.config.backoff.delay(state.in_a_row));
        }
        fault
    }
}

/// How many faults the log keeps (the oldest are dropped; the count is kept).
const FAULT_LOG: usize = 256;

pub(super) fn log(state: &mut State, fault: Fault) {
    state.fault_count += 1;
    if state.faults.len() == FAULT_LOG {
        state.faults.pop_front();
    }
    state.faults.push_back(fault);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn responses_are_checked() {
        let null = parse_response(br#"{"jsonrpc":"2.0","id":3,"result":null}"#, 3);
        assert_eq!(null.map(|r| r.map(RawValue::get)), Ok(Ok("null")));
        let wrong = parse_response(br#"{"jsonrpc":"2.0","id":4,"result":1}"#, 3);
        assert_eq!(
            wrong.map(|r| r.map(RawValue::get)),
            Err((
                FaultKind::ProtocolViolation,
                "answered id 4 while request 3 was outstanding".to_string()
            ))
        );
        assert!(matches!(
            parse_response(b"hello", 1),
            Err((FaultKind::ProtocolViolation, _))
        ));
        assert!(matches!(
            parse_response(br#"{"jsonrpc":"2.0","id":1}"#, 1),
            Err((FaultKind::ProtocolViolation, _))
        ));
        assert!(matches!(
            parse_response(b"[1]", 1),
            Err((FaultKind::ProtocolViolation, m)) if m.starts_with("printed JSON that is not a response object")
        ));
    }

    #[test]
    fn nulls_are_found_outside_strings_only() {
        assert_eq!(find_null(r#"{"a":null}"#), Some(5));
        assert_eq!(
            find_null(r#"{"notice":"null n \" null","n":[1,true,false,-2e5]}"#),
            None
        );
        assert_eq!(find_null(r#"{"a":"\\","b":null}"#), Some(14));
        assert_eq!(find_null(r#"[{"x":[null]}]"#), Some(7));
        assert_eq!(find_null(""), None);
        assert_eq!(find_null(r#""unterminated"#), None);
    }

    #[test]
    fn unknown_methods_make_the_handshake_incompatible() {
        let raw = |methods: &str| {
            RawValue::from_string(format!(
                r#"{{"protocol":1,"peer":{{"name":"p","version":"0"}},"capabilities":{{"methods":{methods},"ground":"shared"}}}}"#
            ))
            .unwrap()
        };
        assert!(check_handshake(&raw(r#"["glob","flow/bash"]"#)).is_ok());
        let (kind, message) = check_handshake(&raw(r#"["glob","frobnicate"]"#)).unwrap_err();
        assert_eq!(kind, FaultKind::Incompatible);
        assert!(message.contains("\"frobnicate\""), "{message}");
    }
}
