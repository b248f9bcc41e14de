"""Tests of lawsuite_peer.py: framing, handshake, answers and failures,
`cwd`, and (as a child process) a clean stdout. Standard library only:

    python3 -m unittest adapters/python/test_lawsuite_peer.py

(tests/python_adapter.rs runs them, and the example peer rewritten on the
adapter, peers/examples/glob_peer.py, through the lawsuite binary.)
"""

import io
import json
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lawsuite_peer import (  # noqa: E402
    FAULT_MESSAGE_BYTES, FAULT_STACK_BYTES, RpcError, StdError, excerpt, serve)

GLOB = {"pattern": "*", "root": ".", "hidden": False, "noIgnore": False, "limit": 10}
OUT = {"paths": [], "total": 0, "truncated": False}
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocol": {"min": 1, "max": 1}}}


def req(rid, method, params=None):
    r = {"jsonrpc": "2.0", "id": rid, "method": method}
    if params is not None:
        r["params"] = params
    return r


def exchange(lines, **options):
    text = "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines)
    out = io.BytesIO()
    serve("t", stdin=io.BytesIO(text.encode()), stdout=out, **options)
    return [json.loads(line) for line in out.getvalue().decode().splitlines()]


def one(method, params, **options):
    return exchange([req(7, method, params)], **options)[0]


class Handshake(unittest.TestCase):
    def test_declares_the_methods_given_in_protocol_order(self):
        [hello] = exchange([INIT], ls=lambda p: p, glob=lambda p: p, read=lambda p: p, ground="full")
        self.assertEqual(hello, {"jsonrpc": "2.0", "id": 1, "result": {
            "protocol": 1, "peer": {"name": "t", "version": "0.0.0", "language": "python"},
            "capabilities": {"methods": ["glob", "flow/read", "flow/ls"], "ground": "full"}}})

    def test_a_search_object_gives_grep_and_glob(self):
        class Search:
            def grep(self, p):
                return p

            def glob(self, p):
                return p
        [hello] = exchange([INIT], search=Search())
        self.assertEqual(hello["result"]["capabilities"]["methods"], ["grep", "glob"])

    def test_no_common_version(self):
        [answer] = exchange([req(3, "initialize", {"protocol": {"min": 2, "max": 4}})], glob=lambda p: OUT)
        self.assertEqual(answer["error"], {
            "code": -32001,
            "message": "no common protocol version: the harness speaks 2..=4, this peer speaks 1",
            "data": {"min": 1, "max": 1}})

    def test_nothing_to_serve_is_refused(self):
        with self.assertRaisesRegex(TypeError, "needs at least one of"):
            serve("t", stdin=io.BytesIO(b""), stdout=io.BytesIO())


class Framing(unittest.TestCase):
    def test_bad_lines_are_answered_and_serving_goes_on(self):
        answers = exchange(["", "not json", '{"jsonrpc":"2.0","method":"glob"}', req(4, "flow/ls", {"path": "."}),
                            req(5, "glob", GLOB), req(6, "shutdown"), req(8, "glob", GLOB)], glob=lambda p: OUT)
        self.assertEqual([(a["id"], a.get("error", {}).get("code", "ok")) for a in answers],
                         [(None, -32700), (None, -32600), (4, -32601), (5, "ok"), (6, "ok")])
        self.assertEqual(answers[3]["result"], OUT)
        self.assertIsNone(answers[4]["result"])


class Answers(unittest.TestCase):
    def test_a_value_and_a_coroutine_are_results(self):
        async def coroutine(params):
            return OUT
        for fn in (lambda p: OUT, coroutine):
            self.assertEqual(one("glob", GLOB, glob=fn), {"jsonrpc": "2.0", "id": 7, "result": OUT})

    def test_a_std_error_is_the_contract_failure(self):
        class HostError(Exception):  # any exception with a §17 code and a message
            code, message = "invalid_pattern", 'Unsupported ripgrep pattern "(": x'

        def raises(err):
            def fn(params):
                raise err
            return fn
        self.assertEqual(one("glob", GLOB, glob=raises(StdError("not_found", "Path not found: nope", "nope")))["error"], {
            "code": -32000, "message": "Path not found: nope",
            "data": {"code": "not_found", "message": "Path not found: nope", "path": "nope"}})
        self.assertEqual(one("grep", {}, grep=raises(HostError()))["error"]["data"],
                         {"code": "invalid_pattern", "message": 'Unsupported ripgrep pattern "(": x'})
        self.assertEqual(one("grep", {}, grep=raises(RpcError(-32602, "bad offset")))["error"],
                         {"code": -32602, "message": "bad offset"})

    def test_anything_else_is_a_fault_with_where_and_traceback(self):
        def broken(params):
            return params["nope"]
        error = one("glob", GLOB, glob=broken)["error"]
        self.assertEqual(error["code"], -32603)
        self.assertRegex(error["message"], r"^glob raised KeyError: 'nope' \(at .*test_lawsuite_peer\.py:\d+ in broken\)$")
        self.assertIn("Traceback", error["data"]["traceback"])
        self.assertEqual(error["data"]["name"], "KeyError")
        # An unknown code is not a StdError; None and non-JSON are not results.
        self.assertEqual(one("glob", GLOB, glob=lambda p: (_ for _ in ()).throw(StdError("ENOENT", "m")))["error"]["code"], -32603)
        self.assertRegex(one("glob", GLOB, glob=lambda p: None)["error"]["message"], "returned None")
        self.assertRegex(one("glob", GLOB, glob=lambda p: {"x": {1, 2}})["error"]["message"], "not JSON serializable")

    def test_a_huge_message_is_one_bounded_excerpt_not_three_copies(self):
        huge = "x" * (1 << 20)

        def broken(params):
            raise ValueError(f"head {huge} tail")
        line_bytes = []

        def fault_of(fn):
            out = io.BytesIO()
            text = json.dumps(req(7, "glob", GLOB)) + "\n"
            serve("t", stdin=io.BytesIO(text.encode()), stdout=out, glob=fn)
            line_bytes.append(len(out.getvalue()))
            return json.loads(out.getvalue())["error"]
        error = fault_of(broken)
        message = error["message"]
        self.assertLessEqual(len(json.dumps(message, ensure_ascii=False).encode()), FAULT_MESSAGE_BYTES)
        self.assertRegex(message, r"^glob raised ValueError: head x+… \[\d+ characters left out\] …x+ tail \(at .*in broken\)$")
        self.assertLessEqual(len(json.dumps(error["data"]["traceback"], ensure_ascii=False).encode()),
                             FAULT_STACK_BYTES)
        self.assertNotIn(huge, error["data"]["message"])
        # The whole answer line: once the megabyte three times over.
        self.assertLess(line_bytes[0], 64 * 1024)

    def test_the_excerpt_bound_on_both_sides(self):
        def quoted(text):
            return len(json.dumps(text, ensure_ascii=False).encode())
        at = "a" * (FAULT_MESSAGE_BYTES - 2)  # two bytes of quotes
        self.assertEqual(quoted(at), FAULT_MESSAGE_BYTES)
        self.assertEqual(excerpt(at, FAULT_MESSAGE_BYTES), at)
        over = excerpt(at + "b", FAULT_MESSAGE_BYTES)
        self.assertLessEqual(quoted(over), FAULT_MESSAGE_BYTES)
        self.assertRegex(over, r"^a+… \[\d+ characters left out\] …a+b$")
        # Control characters are six bytes each as JSON: the bound is bytes.
        controls = excerpt("\x01" * 10000, 600)
        self.assertLessEqual(quoted(controls), 600)
        self.assertGreater(quoted(controls), 500)

    def test_the_readme_quotes_the_bounds_the_adapter_has(self):
        here = os.path.dirname(os.path.abspath(__file__))
        with open(os.path.join(here, "README.md"), encoding="utf-8") as f:
            readme = " ".join(f.read().split())
        self.assertIn(f"`FAULT_MESSAGE_BYTES` ({FAULT_MESSAGE_BYTES:,})", readme)
        self.assertIn(f"`FAULT_STACK_BYTES` ({FAULT_STACK_BYTES:,})", readme)

    def test_an_os_error_is_explained_in_the_contracts_words(self):
        def stat(params):
            os.stat(os.path.join(__file__, "x"))
        error = one("glob", GLOB, glob=stat)["error"]
        self.assertEqual(error["code"], -32603)
        self.assertIn("search-contract §7.1 answers a host reason other than NotFound and PermissionDenied"
                      " (ENOTDIR) with command_failed «Cannot search {root}: {host error message}»",
                      error["message"])
        error = one("flow/read", {"path": "/no/such/file"}, read=lambda p: open(p["path"]))["error"]
        self.assertIn("read-ls-flows' read-side mapping answers the host reason NotFound (ENOENT)"
                      " with not_found «File not found: {path}»", error["message"])
        # Not an OSError: no hint.
        self.assertNotIn("answers", one("glob", GLOB, glob=lambda p: 1 / 0)["error"]["message"])

    def test_read_and_ls_run_in_the_calls_cwd(self):
        here = os.getcwd()
        seen = []

        def record(params):
            seen.append((params, os.getcwd()))
            return {"ok": True}
        with tempfile.TemporaryDirectory() as tmp:
            tmp = os.path.realpath(tmp)
            exchange([req(1, "flow/read", {"path": "a", "offset": 2, "cwd": tmp}),
                      req(2, "flow/ls", {"path": "b", "cwd": tmp}),
                      req(3, "flow/read", {"path": "/abs"}),
                      req(4, "flow/bash", {"command": "pwd", "cwd": tmp})],
                     read=record, ls=record, bash=record)
        self.assertEqual(seen, [({"path": "a", "offset": 2}, tmp), ({"path": "b"}, tmp),
                                ({"path": "/abs"}, here), ({"command": "pwd", "cwd": tmp}, here)])
        self.assertEqual(os.getcwd(), here)


class AsAProcess(unittest.TestCase):
    PEER = (
        "import sys; sys.path.insert(0, {dir!r})\n"
        "from lawsuite_peer import serve\n"
        "print('before serving: the host s own stdout')\n"
        "def glob(p):\n"
        "    print('print while serving')\n"
        "    return {{'paths': [], 'total': 0, 'truncated': False}}\n"
        "serve('chatty', glob=glob)\n"
        "print('after serving')\n")

    def test_only_protocol_lines_on_stdout(self):
        code = self.PEER.format(dir=os.path.dirname(os.path.abspath(__file__)))
        lines = "".join(json.dumps(r) + "\n" for r in (INIT, req(2, "glob", GLOB), req(3, "shutdown")))
        run = subprocess.run([sys.executable, "-S", "-c", code], input=lines, capture_output=True, text=True, timeout=30)
        self.assertEqual(run.returncode, 0, run.stderr)
        out = run.stdout.splitlines()
        self.assertEqual(out[0], "before serving: the host s own stdout")
        self.assertEqual([json.loads(line)["id"] for line in out[1:4]], [1, 2, 3])
        self.assertEqual(out[4:], ["after serving"])
        self.assertIn("print while serving", run.stderr)


if __name__ == "__main__":
    unittest.main()
