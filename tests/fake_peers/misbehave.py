#!/usr/bin/env python3
"""A fake lawsuite peer that misbehaves on purpose (tests/protocol.rs).

Usage: misbehave.py MODE [SECONDS]

With $FAKE_PIDS set, each process appends its pid to that file at start.

It answers `initialize` (declaring grep and glob) and `shutdown` properly
unless MODE says otherwise, and answers `grep`/`glob` with an empty output
unless MODE says otherwise:

  ok            behave
  hang          never answer glob
  hostile       carry ESC, BEL, CR and `::` workflow commands in its name,
                version, stderr, error messages and answers (every glob
                answers one such path, every grep a JSON-RPC error)
  stuck         answer the handshake, then never answer anything (grep,
                glob, shutdown): a peer every command must stop on its own
  crash         write to stderr, then exit 3 on glob
  garbage       print a non-JSON line for glob
  wrong-id      answer glob with another id
  huge          print a 100 MB line for glob
  slow-start    sleep SECONDS before reading anything, then behave
  mute-init     read initialize and never answer
  exit-at-start exit 7 before reading anything
  old-protocol  speak only protocol versions 2..=3
  chatty        write 1 MB to stderr before each answer, then behave
  rpc-error     answer glob with JSON-RPC error -32603
  crash-once    crash on the first glob of all processes sharing the
                marker file named by $FAKE_MARKER, then behave
  null-notice   answer glob with `"notice": null` (the protocol: never null)
  malformed     answer glob with a result that is not a glob output
  unknown-method declare the method "frobnicate" besides grep and glob
  big-valid     answer glob with a valid result of SECONDS MiB (paths of 1 MiB)
  one-big-path  answer every glob with one path of SECONDS MiB (within any
                limit, past what any tree's paths can be)
  grandchild    start `sleep 600` in the background, write its pid to
                $FAKE_MARKER, then behave
  crash-after   answer the first SECONDS globs of each process, then exit 3
  hang-after    answer the first SECONDS globs of each process, then hang
  flood         answer every grep with SECONDS matches and every glob with
                SECONDS paths (valid-looking, far past any call's limit)
  slow          sleep SECONDS before answering each glob
  orphan-exit   on glob, leave `sleep 600` holding stdout, then exit 5
                without answering
"""
import json
import os
import subprocess
import sys
import time

MODE = sys.argv[1] if len(sys.argv) > 1 else "ok"
SECONDS = float(sys.argv[2]) if len(sys.argv) > 2 else 0.0
# What a terminal or a GitHub runner would act on: colour, bell, a carriage
# return over the line, a title change, and workflow commands on a line of
# their own.
HOSTILE = "\x1b[31mred\x07\rover\x1b]0;title\x07\n::add-mask::FAIL\n  ::error::owned"
EMPTY_GLOB = {"paths": [], "total": 0, "truncated": False}
EMPTY_GREP = {"matches": [], "files": [], "filesSearched": 0, "skippedBinary": 0,
              "truncated": False}


def say(text):
    print(f"fake peer {MODE}: {text}", file=sys.stderr, flush=True)


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def forever():
    while True:
        time.sleep(3600)


def main():
    say(f"starting, pid {os.getpid()}")
    if os.environ.get("FAKE_PIDS"):
        with open(os.environ["FAKE_PIDS"], "a") as f:
            f.write(f"{os.getpid()}\n")
    if MODE == "exit-at-start":
        say("exiting before the handshake")
        sys.exit(7)
    if MODE == "slow-start":
        time.sleep(SECONDS)
    if MODE == "grandchild":
        child = subprocess.Popen(["sleep", "600"])
        with open(os.environ["FAKE_MARKER"], "w") as f:
            f.write(str(child.pid))
        say(f"started grandchild {child.pid}")
    globs = 0
    for line in sys.stdin:
        request = json.loads(line)
        rid, method = request["id"], request["method"]
        if MODE == "chatty":
            sys.stderr.write("x" * (1 << 20) + "\n")
            sys.stderr.flush()
        if method == "initialize":
            if MODE == "mute-init":
                say("not answering initialize")
                forever()
            if MODE == "old-protocol":
                send({"jsonrpc": "2.0", "id": rid, "error": {
                    "code": -32001, "message": "this peer speaks 2..=3",
                    "data": {"min": 2, "max": 3}}})
                continue
            methods = ["grep", "glob"]
            if MODE == "hostile":
                sys.stderr.write(HOSTILE + "\n")
                sys.stderr.flush()
                send({"jsonrpc": "2.0", "id": rid, "result": {
                    "protocol": 1, "peer": {"name": "fake" + HOSTILE, "version": HOSTILE},
                    "capabilities": {"methods": methods, "ground": "shared"}}})
                continue
            if MODE == "unknown-method":
                methods.append("frobnicate")
            send({"jsonrpc": "2.0", "id": rid, "result": {
                "protocol": 1, "peer": {"name": f"fake-{MODE}", "version": "0"},
                "capabilities": {"methods": methods, "ground": "shared"}}})
        elif MODE == "hostile" and method in ("grep", "glob"):
            sys.stderr.write(HOSTILE + "\n")
            sys.stderr.flush()
            if method == "glob":
                send({"jsonrpc": "2.0", "id": rid, "result": {
                    "paths": [HOSTILE], "total": 1, "truncated": False}})
            else:
                send({"jsonrpc": "2.0", "id": rid, "error": {
                    "code": -32603, "message": HOSTILE}})
        elif MODE == "stuck":
            say(f"not answering {method}")
            forever()
        elif method == "shutdown":
            send({"jsonrpc": "2.0", "id": rid, "result": None})
            return
        elif method == "glob":
            globs += 1
            if MODE == "flood":
                n = int(SECONDS)
                say(f"answering glob with {n} paths")
                flood(rid, '{"paths":[', '"a"', '],"total":%d,"truncated":false}' % n, n)
                continue
            if MODE == "slow":
                time.sleep(SECONDS)
            if MODE == "orphan-exit":
                say("leaving a grandchild on stdout, exiting 5")
                subprocess.Popen(["sleep", "600"], stdin=subprocess.DEVNULL)
                sys.exit(5)
            if MODE == "crash-after" and globs > SECONDS:
                say(f"crashing on glob {globs}")
                sys.exit(3)
            if MODE == "hang-after" and globs > SECONDS:
                say(f"hanging on glob {globs}")
                forever()
            if MODE == "hang":
                say("hanging on glob")
                forever()
            if MODE == "crash" or (MODE == "crash-once" and first_crash()):
                say("crashing on glob")
                sys.exit(3)
            if MODE == "garbage":
                print("this is not json", flush=True)
                continue
            if MODE == "wrong-id":
                send({"jsonrpc": "2.0", "id": rid + 100, "result": EMPTY_GLOB})
                continue
            if MODE == "huge":
                say("printing a 100 MB line")
                chunk = "x" * (1 << 20)
                for _ in range(100):
                    sys.stdout.write(chunk)
                sys.stdout.write("\n")
                sys.stdout.flush()
                continue
            if MODE == "null-notice":
                send({"jsonrpc": "2.0", "id": rid, "result": dict(EMPTY_GLOB, notice=None)})
                continue
            if MODE == "malformed":
                send({"jsonrpc": "2.0", "id": rid, "result": {"paths": 5}})
                continue
            if MODE == "big-valid":
                n = int(SECONDS)
                say(f"answering {n} paths of 1 MiB")
                paths = ["p" * ((1 << 20) - 8) + f"{i:08}" for i in range(n)]
                send({"jsonrpc": "2.0", "id": rid,
                      "result": {"paths": paths, "total": n, "truncated": False}})
                continue
            if MODE == "rpc-error":
                send({"jsonrpc": "2.0", "id": rid,
                      "error": {"code": -32603, "message": "something broke"}})
                continue
            if MODE == "one-big-path":
                root = request.get("params", {}).get("root", ".")
                path = root + "/" + "p" * int(SECONDS * (1 << 20))
                send({"jsonrpc": "2.0", "id": rid,
                      "result": {"paths": [path], "total": 1, "truncated": False}})
                continue
            send({"jsonrpc": "2.0", "id": rid, "result": EMPTY_GLOB})
        elif method == "grep":
            if MODE == "flood":
                n = int(SECONDS)
                say(f"answering grep with {n} matches")
                one = '{"file":"a","line":1,"text":"x","before":[],"after":[]}'
                flood(rid, '{"matches":[', one, '],"files":[],"filesSearched":1,'
                      '"skippedBinary":0,"truncated":false}', n)
                continue
            send({"jsonrpc": "2.0", "id": rid, "result": EMPTY_GREP})
        else:
            send({"jsonrpc": "2.0", "id": rid,
                  "error": {"code": -32601, "message": "unknown method"}})


def flood(rid, head, item, tail, n):
    """Write one response line whose result is `head`, `item` n times
    (comma-separated), then `tail`, without holding it all in memory."""
    out = sys.stdout
    out.write('{"jsonrpc":"2.0","id":%d,"result":' % rid + head)
    block = ",".join([item] * 10000)
    left = n
    first = True
    while left > 0:
        k = min(left, 10000)
        chunk = block if k == 10000 else ",".join([item] * k)
        out.write(chunk if first else "," + chunk)
        first = False
        left -= k
    out.write(tail + "}\n")
    out.flush()


def first_crash():
    marker = os.environ["FAKE_MARKER"]
    if os.path.exists(marker):
        return False
    open(marker, "w").close()
    return True


if __name__ == "__main__":
    try:
        main()
    except BrokenPipeError:
        pass
