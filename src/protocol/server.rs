//! The peer side of the protocol: [`serve`] answers requests for any
//! [`Search`] over a pair of byte streams (`lawsuite serve` passes
//! stdin/stdout).
//!
//! Serving a built-in peer is how the protocol is tested end to end: the
//! harness talks to `lawsuite serve --peer portable` exactly as it talks to
//! a peer written in another language, and must get the in-process
//! answers back.

use std::io::{self, BufRead, Write};
use std::panic::{AssertUnwindSafe, catch_unwind};

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::framing::{CappedLine, Line, Overlong, read_line, write_line};
use super::messages::{
    Capabilities, Ground, INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, InitializeParams,
    InitializeResult, JSONRPC, METHOD_NOT_FOUND, NO_COMMON_VERSION, PARSE_ERROR, PeerInfo,
    Response, RpcError,
};
use super::{MAX_LINE_BYTES, PROTOCOL, method};
use crate::call::Call;
use crate::peer::{Method, Search};

/// Answer requests from `input` on `output` until `shutdown` (answered,
/// then return) or the end of `input`.
///
/// Every request line gets exactly one response line, flushed at once. A
/// line that is not a request gets a JSON-RPC error (id `null` when it
/// could not be read) and serving goes on; a line longer than
/// [`MAX_LINE_BYTES`] gets a parse error and the rest of it is skipped.
///
/// ```
/// use lawsuite::peer::Noop;
/// use lawsuite::protocol::serve;
///
/// let input = concat!(
///     r#"{"jsonrpc":"2.0","id":1,"method":"glob","params":{"pattern":"*","root":".","hidden":false,"noIgnore":false,"limit":5}}"#, "\n",
///     r#"{"jsonrpc":"2.0","id":2,"method":"shutdown"}"#, "\n",
/// );
/// let mut output = Vec::new();
/// serve(&Noop, input.as_bytes(), &mut output)?;
/// let lines: Vec<&str> = std::str::from_utf8(&output)?.lines().collect();
/// assert_eq!(
///     lines[0],
///     r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"No search implementation is configured","data":{"code":"provider_unavailable","message":"No search implementation is configured"}}}"#,
/// );
/// assert_eq!(lines[1], r#"{"jsonrpc":"2.0","id":2,"result":null}"#);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn serve<R: BufRead, W: Write>(
    peer: &dyn Search,
    mut input: R,
    mut output: W,
) -> io::Result<()> {
    let mut line = Vec::new();
    loop {
        line.clear();
        let capped = CappedLine::new(MAX_LINE_BYTES, Overlong::Skip);
        let response = match read_line(&mut input, &mut line, capped)? {
            Line::Eof => return Ok(()),
            Line::TooLong => Response::err(
                None,
                RpcError::new(
                    PARSE_ERROR,
                    format!("the request line is longer than {MAX_LINE_BYTES} bytes"),
                ),
            ),
            // The last line needs no `\n`.
            Line::Complete | Line::Unterminated if line.iter().all(u8::is_ascii_whitespace) => {
                continue;
            }
            Line::Complete | Line::Unterminated => match handle(peer, &line) {
                (response, Next::Stop) => {
                    write_line(&mut output, &response)?;
                    return Ok(());
                }
                (response, Next::Continue) => response,
            },
        };
        write_line(&mut output, &response)?;
    }
}

enum Next {
    Continue,
    Stop,
}

/// One request line → its response.
fn handle(peer: &dyn Search, line: &[u8]) -> (Response, Next) {
    let value: Value = match serde_json::from_slice(line) {
        Ok(v) => v,
        Err(e) => {
            return (
                Response::err(
                    None,
                    RpcError::new(PARSE_ERROR, format!("the line is not JSON: {e}")),
                ),
                Next::Continue,
            );
        }
    };
    let id = value.get("id").and_then(Value::as_u64);
    let method = value.get("method").and_then(Value::as_str);
    let (Some(id), Some(method), Some(JSONRPC)) =
        (id, method, value.get("jsonrpc").and_then(Value::as_str))
    else {
        return (
            Response::err(
                id,
                RpcError::new(
                    INVALID_REQUEST,
                    "a request needs \"jsonrpc\":\"2.0\", an integer \"id\" and a string \"method\"",
                ),
            ),
            Next::Continue,
        );
    };
    let params = value.get("params").cloned().unwrap_or(Value::Null);
    let answer = catch_unwind(AssertUnwindSafe(|| dispatch(peer, method, params)));
    match answer {
        Ok(Ok(result)) => (
            Response::ok(id, result),
            if method == method::SHUTDOWN {
                Next::Stop
            } else {
                Next::Continue
            },
        ),
        Ok(Err(error)) => (Response::err(Some(id), error), Next::Continue),
        Err(_) => (
            Response::err(
                Some(id),
                RpcError::new(
                    INTERNAL_ERROR,
                    format!("the peer {} panicked answering {method}", peer.name()),
                ),
            ),
            Next::Continue,
        ),
    }
}

fn dispatch(peer: &dyn Search, name: &str, params: Value) -> Result<Value, RpcError> {
    match name {
        method::INITIALIZE => return initialize(peer, params),
        method::SHUTDOWN => return Ok(Value::Null),
        _ => {}
    }
    let Ok(method) = name.parse::<Method>() else {
        return Err(RpcError::new(
            METHOD_NOT_FOUND,
            format!(
                "unknown method {name:?}; this peer answers initialize, {} and shutdown",
                served_methods(peer).join(", ")
            ),
        ));
    };
    let call =
        Call::parse(method, params).map_err(|e| RpcError::new(INVALID_PARAMS, e.to_string()))?;
    match call.run(peer) {
        Ok(value) => Ok(value),
        Err(err) => Err(RpcError::contract(&err)),
    }
}

fn initialize(peer: &dyn Search, params: Value) -> Result<Value, RpcError> {
    let params: InitializeParams = parse(method::INITIALIZE, params)?;
    let Some(version) = PROTOCOL.common(&params.protocol) else {
        return Err(RpcError {
            code: NO_COMMON_VERSION,
            message: format!(
                "no common protocol version: the harness speaks {}, this peer speaks {}",
                params.protocol, PROTOCOL
            ),
            data: serde_json::to_value(PROTOCOL).ok(),
        });
    };
    let methods = served_methods(peer);
    let result = InitializeResult {
        protocol: version,
        peer: PeerInfo {
            name: peer.name().to_string(),
            version: peer.version(),
            language: Some("rust".to_string()),
            homepage: None,
        },
        capabilities: Capabilities {
            methods,
            ground: Ground::Full,
        },
    };
    serde_json::to_value(result).map_err(|e| RpcError::new(INTERNAL_ERROR, e.to_string()))
}

/// The methods `peer` answers, as `initialize` declares them: the flow
/// layer's `flow/grep` and `flow/glob` wherever `grep` and `glob` are
/// answered, and the file flows the peer [supports](Search::supports).
fn served_methods(peer: &dyn Search) -> Vec<String> {
    Method::ALL
        .into_iter()
        .filter(|m| *m != Method::FlowBash || cfg!(unix))
        .filter(|m| peer.supports(*m))
        .map(|m| m.name().to_string())
        .collect()
}

fn parse<T: DeserializeOwned>(method: &str, params: Value) -> Result<T, RpcError> {
    serde_json::from_value(params).map_err(|e| {
        RpcError::new(
            INVALID_PARAMS,
            format!("the params of {method} are not valid: {e}"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::peer::Noop;

    fn exchange(input: &str) -> Vec<Value> {
        let mut out = Vec::new();
        serve(&Noop, input.as_bytes(), &mut out).expect("in-memory streams do not fail");
        String::from_utf8(out)
            .expect("responses are UTF-8")
            .lines()
            .map(|l| serde_json::from_str(l).expect("responses are JSON"))
            .collect()
    }

    #[test]
    fn faults_get_standard_codes_and_serving_goes_on() {
        let answers = exchange(concat!(
            "not json\n",
            "\n",
            "{\"jsonrpc\":\"2.0\",\"method\":\"glob\"}\n",
            "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"nope\"}\n",
            "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"glob\",\"params\":{}}\n",
            "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"initialize\",\"params\":{\"protocol\":{\"min\":7,\"max\":9}}}\n",
        ));
        let codes: Vec<i64> = answers
            .iter()
            .map(|a| a["error"]["code"].as_i64().unwrap_or(0))
            .collect();
        assert_eq!(
            codes,
            [
                PARSE_ERROR,
                INVALID_REQUEST,
                METHOD_NOT_FOUND,
                INVALID_PARAMS,
                NO_COMMON_VERSION
            ]
        );
        assert_eq!(answers[0]["id"], Value::Null);
        assert_eq!(answers[4]["id"], 5);
        assert_eq!(
            answers[4]["error"]["message"],
            "no common protocol version: the harness speaks 7..=9, this peer speaks 1"
        );
    }
}
