"""A lawsuite peer from plain Python functions (peers/PROTOCOL.md, version 1).

One file, standard library only, Python 3.8+. Copy it next to your peer (or
put this directory on sys.path) and hand it your methods:

    from lawsuite_peer import StdError, serve

    def glob(params):               # the seam: search-contract §5 GlobInput in
        ...                         # §6.3 GlobOutput out (a dict)
        raise StdError("not_found", f"Path not found: {params['root']}", params["root"])

    serve("my-peer", "0.1.0", glob=glob)

What it does for you: newline-delimited JSON-RPC framing on stdin/stdout,
the `initialize` handshake (version range, the methods you passed, your
ground), one call at a time, the `cwd` of `flow/read` and `flow/ls` (the call
runs with it as the working directory, so a relative path resolves, and is
reported, as the spec says), error mapping, `shutdown`, and a stdout that
carries protocol lines only (print() while serving goes to stderr).

Answers:
  * a return value (a dict; a coroutine is awaited) is the result;
  * a StdError (this module's, or any exception with a search-contract §17
    `code` and a string `message`) is the contract failure, error -32000
    with `data` {code, message, path?};
  * an RpcError is sent as it is (e.g. -32602 for params of the wrong shape);
  * any other exception is a fault of the peer: error -32603 naming it and
    where it was raised, `data` {name, message, traceback}, and the
    traceback on stderr. A fault is bounded: its message takes at most
    FAULT_MESSAGE_BYTES of JSON and its traceback FAULT_STACK_BYTES, each
    cut in the middle with the count of what was left out, so an exception
    quoting a megabyte is reported, not refused for its size. An OSError
    (ENOTDIR, ENOENT, ...) raised by read, ls, grep or glob is explained in
    the contract's words: which failure the contract gives for it. It stays
    a fault: only the host knows the words the contract's message needs.
A result must be JSON with optional keys left out: None is `null`, which
the protocol counts as a violation.
"""

import json
import os
import sys

__all__ = ["CODES", "FAULT_MESSAGE_BYTES", "FAULT_STACK_BYTES", "PROTOCOL", "RpcError",
           "StdError", "excerpt", "serve"]

PROTOCOL = (1, 1)

# search-contract §17: the closed list of StdError codes.
CODES = frozenset((
    "stale_read", "not_found", "not_a_directory", "not_a_file", "is_directory",
    "binary_file", "offset_out_of_range", "invalid_pattern", "invalid_input",
    "no_match", "not_modified", "permission_denied", "outside_declared_reads",
    "outside_declared_writes", "command_failed", "request_failed", "timeout",
    "rate_limited", "provider_unavailable", "unsupported",
    "unsupported_content_type", "response_too_large", "outside_container",
))

# serve()'s keywords → protocol methods, in the order they are declared.
METHODS = (("grep", "grep"), ("glob", "glob"), ("flow_grep", "flow/grep"),
           ("flow_glob", "flow/glob"), ("read", "flow/read"), ("ls", "flow/ls"),
           ("bash", "flow/bash"))

# The most bytes of JSON (UTF-8, quotes included) a fault's message takes.
# lawsuite's answer budget grants every call at least 4,096 bytes beyond its
# answer's parts (docs/bounds.md, "answer budget"), and the fault it reports
# holds this message once, inside its own words (about 130 bytes and the
# peer's name): 4,096 - 512. A longer message made the fault a budget
# overrun that hid the peer's error.
FAULT_MESSAGE_BYTES = 3584
# The most bytes of JSON a fault's traceback takes (`data.traceback`, and
# stderr): what lawsuite keeps of one value of a failing case (16 KiB).
FAULT_STACK_BYTES = 16384

CONTRACT_FAILURE = -32000
NO_COMMON_VERSION = -32001
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603


class StdError(Exception):
    """A contract failure (search-contract §17): code, message, path."""

    def __init__(self, code, message, path=None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.path = path


class RpcError(Exception):
    """A JSON-RPC error sent as it is."""

    def __init__(self, code, message, data=None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data


def is_std_error(err):
    """Whether `err` carries a §17 `code` and a string `message`."""
    return (not isinstance(err, RpcError)
            and isinstance(getattr(err, "code", None), str) and err.code in CODES
            and isinstance(getattr(err, "message", None), str))


def contract_error(err):
    data = {"code": err.code, "message": err.message}
    if isinstance(getattr(err, "path", None), str):
        data["path"] = err.path
    return {"code": CONTRACT_FAILURE, "message": err.message, "data": data}


def _json_bytes(text):
    """The bytes of `text` as JSON (UTF-8, quotes included), as lawsuite counts it."""
    return len(json.dumps(text, ensure_ascii=False).encode("utf-8", "surrogatepass"))


def excerpt(text, most):
    """`text` whole when its JSON takes at most `most` bytes; else its head
    and tail, as long as fit, around `… [N characters left out] …`."""
    if _json_bytes(text) <= most:
        return text

    def cut(keep):
        head, tail = (keep + 1) // 2, len(text) - keep // 2
        return f"{text[:head]}… [{tail - head} characters left out] …{text[tail:]}"

    # The most characters kept whose excerpt fits: bisection, as a
    # character's bytes range from 1 to 6 (an escaped control character).
    lo, hi = 0, len(text) - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if _json_bytes(cut(mid)) <= most:
            lo = mid
        else:
            hi = mid - 1
    return cut(lo)


def contract_hint(method, err):
    """What the contract answers for an OSError of `method`, in its words.

    search-contract §7.1 and read-ls-flows' read-side mapping name the host
    reasons NotFound (ENOENT) and PermissionDenied (EACCES); any other errno
    (ENOTDIR, ELOOP, EISDIR, ...) is "another reason". None for anything
    else. The adapter does not answer it for the host: the contract's
    message needs the failing path and the host's own words.
    """
    import errno as codes
    if not isinstance(err, OSError) or err.errno is None:
        return None
    name = codes.errorcode.get(err.errno, str(err.errno))
    reason = {codes.ENOENT: "NotFound", codes.EACCES: "PermissionDenied"}.get(err.errno)
    words = (f"the host reason {reason} ({name})" if reason
             else f"a host reason other than NotFound and PermissionDenied ({name})")
    if method in ("grep", "glob", "flow/grep", "flow/glob"):
        answer = {"NotFound": "not_found «Path not found: {root}»",
                  "PermissionDenied": "permission_denied «Cannot search {root}: {host error message}»"
                  }.get(reason, "command_failed «Cannot search {root}: {host error message}»")
        return (f"search-contract §7.1 answers {words} with {answer} when the root fails: "
                "raise a StdError of that code")
    if method in ("flow/read", "flow/ls"):
        missing = "File not found: {path}" if method == "flow/read" else "Directory not found: {path}"
        answer = {"NotFound": f"not_found «{missing}»",
                  "PermissionDenied": "permission_denied «Permission denied: {path}»"
                  }.get(reason, "command_failed «Could not read {path}: {host error message}»")
        return (f"read-ls-flows' read-side mapping answers {words} with {answer}: "
                "raise a StdError of that code")
    return None


def fault(method, err):
    """Any other exception: -32603 with where it was raised, traceback on stderr.

    The exception's message appears once, cut to fit FAULT_MESSAGE_BYTES
    with the adapter's words around it; `data.message` is that excerpt, and
    the traceback (whose last line repeats the message) holds it instead.
    """
    import traceback  # only when something went wrong: it costs start-up time
    whole = str(err)
    name = excerpt(type(err).__name__, 256)
    frames = traceback.extract_tb(err.__traceback__)
    where = ""
    if frames:
        last = frames[-1]
        where = f" (at {excerpt(f'{last.filename}:{last.lineno} in {last.name}', 512)})"
    hint = contract_hint(method, err)
    before = f"{method} raised {name}: "
    after = where + (f"; {hint}" if hint else "")
    # The room the exception's words have: the bound less the adapter's words.
    room = max(FAULT_MESSAGE_BYTES - _json_bytes(before + after) + 2, 64)
    message = excerpt(whole, room)
    trace = "".join(traceback.format_exception(type(err), err, err.__traceback__))
    if message != whole:
        trace = trace.replace(whole, message)
    trace = excerpt(trace, FAULT_STACK_BYTES)
    sys.stderr.write(f"lawsuite_peer: {method} failed (a fault, not an answer):\n{trace}")
    sys.stderr.flush()
    return {"code": INTERNAL_ERROR,
            "message": excerpt(before + message + after, FAULT_MESSAGE_BYTES),
            "data": {"name": name, "message": message, "traceback": trace}}


def declared(search=None, **handlers):
    """The methods served, protocol name → function, in declaration order."""
    table = {}
    for keyword, method in METHODS:
        fn = handlers.get(keyword)
        if fn is None and search is not None and keyword in ("grep", "glob"):
            fn = getattr(search, keyword, None)
        if fn is None:
            continue
        if not callable(fn):
            raise TypeError(f"{keyword} is not callable")
        table[method] = fn
    if not table:
        raise TypeError("serve() needs at least one of " + ", ".join(k for k, _ in METHODS))
    return table


def serve(name, version="0.0.0", *, search=None, grep=None, glob=None, flow_grep=None,
          flow_glob=None, read=None, ls=None, bash=None, ground="shared",
          language="python", homepage=None, stdin=None, stdout=None):
    """Serve the given methods until `shutdown` or the end of stdin.

    `grep`, `glob` (or an object `search` with those methods) take the
    normalised seam input; `flow_grep`, `flow_glob`, `read`, `ls`, `bash` are
    whole flows (declared as flow/grep, flow/glob, flow/read, flow/ls,
    flow/bash). Each takes the params dict and returns the result dict.
    `ground` is "shared" (plain files and directories) or "full".
    `stdin`/`stdout` are binary streams (default: the process's).
    """
    table = declared(search, grep=grep, glob=glob, flow_grep=flow_grep, flow_glob=flow_glob,
                     read=read, ls=ls, bash=bash)
    if ground not in ("shared", "full"):
        raise ValueError(f'ground must be "shared" or "full", not {ground!r}')
    peer = {"name": name, "version": version, "language": language}
    if homepage:
        peer["homepage"] = homepage
    source = stdin if stdin is not None else sys.stdin.buffer
    sink = stdout if stdout is not None else sys.stdout.buffer
    # Only protocol lines on stdout: the host's print() goes to stderr.
    saved, sys.stdout = sys.stdout, sys.stderr
    try:
        for raw in source:
            if not raw.strip():
                continue
            reply, stop = answer(raw, table, peer, ground)
            try:
                line = json.dumps(reply, ensure_ascii=True, allow_nan=False)
            except (TypeError, ValueError) as err:  # a result that is not JSON
                line = json.dumps({"jsonrpc": "2.0", "id": reply["id"],
                                   "error": fault("the answer", err)})
            sink.write(line.encode("ascii") + b"\n")
            sink.flush()
            if stop:
                break
    finally:
        sys.stdout = saved


def answer(raw, table, peer, ground):
    """One request line → (its response, whether to stop)."""
    try:
        request = json.loads(raw)
    except ValueError as err:
        return {"jsonrpc": "2.0", "id": None,
                "error": {"code": PARSE_ERROR, "message": f"the line is not JSON: {err}"}}, False
    rid = request.get("id") if isinstance(request, dict) else None
    if isinstance(rid, bool) or not isinstance(rid, int) or rid < 0:
        rid = None
    method = request.get("method") if isinstance(request, dict) else None
    if rid is None or request.get("jsonrpc") != "2.0" or not isinstance(method, str):
        return {"jsonrpc": "2.0", "id": rid, "error": {
            "code": INVALID_REQUEST,
            "message": 'a request needs "jsonrpc":"2.0", an integer "id" and a string "method"'}}, False
    params = request.get("params")
    if method == "shutdown":
        return {"jsonrpc": "2.0", "id": rid, "result": None}, True
    if method == "initialize":
        body = initialize(params, list(table), peer, ground)
    elif method in table:
        body = call(method, table[method], params)
    else:
        body = {"error": {"code": METHOD_NOT_FOUND, "message": (
            f"unknown method {method!r}; this peer answers initialize, "
            f"{', '.join(table)} and shutdown")}}
    return {"jsonrpc": "2.0", "id": rid, **body}, False


def initialize(params, methods, peer, ground):
    theirs = params.get("protocol") if isinstance(params, dict) else None
    if not (isinstance(theirs, dict) and isinstance(theirs.get("min"), int)
            and isinstance(theirs.get("max"), int)):
        return {"error": {"code": INVALID_PARAMS,
                          "message": "the params of initialize are not valid: protocol must be {min, max}"}}
    lo, hi = max(theirs["min"], PROTOCOL[0]), min(theirs["max"], PROTOCOL[1])
    if lo > hi:
        def show(a, b):
            return f"{a}" if a == b else f"{a}..={b}"
        return {"error": {
            "code": NO_COMMON_VERSION,
            "message": (f"no common protocol version: the harness speaks "
                        f"{show(theirs['min'], theirs['max'])}, this peer speaks {show(*PROTOCOL)}"),
            "data": {"min": PROTOCOL[0], "max": PROTOCOL[1]}}}
    return {"result": {"protocol": hi, "peer": peer,
                       "capabilities": {"methods": methods, "ground": ground}}}


def call(method, fn, params):
    """One call: `fn` run (in `cwd` for read and ls), its answer mapped."""
    if not isinstance(params, dict):
        return {"error": {"code": INVALID_PARAMS,
                          "message": f"the params of {method} are not valid: an object is needed"}}
    before = None
    try:
        if method in ("flow/read", "flow/ls") and "cwd" in params:
            # `cwd` is lawsuite's, not the spec's: the call runs there.
            params = dict(params)
            cwd = params.pop("cwd")
            before = os.getcwd()
            os.chdir(cwd)
        result = fn(params)
        if hasattr(result, "__await__"):
            import asyncio
            result = asyncio.run(_awaited(result))
        if result is None:
            raise TypeError(f"{getattr(fn, '__name__', method)} returned None")
        return {"result": result}
    except RpcError as err:
        error = {"code": err.code, "message": err.message}
        if err.data is not None:
            error["data"] = err.data
        return {"error": error}
    except Exception as err:  # a bug of the peer must not end the session
        return {"error": contract_error(err) if is_std_error(err) else fault(method, err)}
    finally:
        if before is not None:
            os.chdir(before)


async def _awaited(awaitable):
    return await awaitable
