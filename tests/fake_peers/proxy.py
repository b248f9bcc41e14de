#!/usr/bin/env python3
"""A peer that is `lawsuite serve --peer portable` with one thing changed,
for the front-door tests (tests/front_doors.rs).

Usage: proxy.py LAWSUITE MODE

It starts `LAWSUITE serve --peer portable`, forwards every request line to
it and every response back, except where MODE says:

  wrong     glob and flow/glob answers lose their first path (so glob laws and seeds
            fail); the first glob of `*.ts` of all processes sharing the
            marker file $FAKE_MARKER writes a line to stderr and exits 3
            (a crash, so the fault log and stderr tail show)
  own-flow  declares only `flow/grep`: its own flow layer, which never
            retries a pattern as a literal (flow/grep answers lose
            `retriedAsLiteral` and `notice`)
  lists-ignored
            grep and glob search what `.gitignore` leaves out (every
            request is sent on with `noIgnore` set): the Node peer of
            issue 27, for the shrinking and report tests
"""
import json
import os
import subprocess
import sys

LAWSUITE, MODE = sys.argv[1], sys.argv[2]
child = subprocess.Popen([LAWSUITE, "serve", "--peer", "portable"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


def forward(line):
    child.stdin.write(line)
    child.stdin.flush()
    return json.loads(child.stdout.readline())


for line in sys.stdin:
    request = json.loads(line)
    method = request.get("method")
    if MODE == "lists-ignored" and method in ("grep", "glob"):
        request["params"]["noIgnore"] = True
        line = json.dumps(request) + "\n"
    response = forward(line)
    result = response.get("result")
    if MODE == "own-flow" and method == "initialize":
        result["capabilities"]["methods"] = ["flow/grep"]
        result["peer"]["name"] = "own-flow"
    if MODE == "own-flow" and method == "flow/grep" and result is not None:
        result.pop("retriedAsLiteral", None)
        result.pop("notice", None)
    if MODE == "wrong" and method in ("glob", "flow/glob") and result is not None:
        marker = os.environ.get("FAKE_MARKER")
        if request["params"]["pattern"] == "*.ts" and marker and not os.path.exists(marker):
            open(marker, "w").close()
            print("wrong peer: giving up on *.ts", file=sys.stderr, flush=True)
            sys.exit(3)
        result["paths"] = result["paths"][1:]
    sys.stdout.write(json.dumps(response) + "\n")
    sys.stdout.flush()
    if method == "shutdown":
        break
child.stdin.close()
child.wait()
