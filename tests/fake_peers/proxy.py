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
  honest    changes nothing (an external peer to stand beside the others)
  rare      a bug the default seeds never meet: a grep with limit 1, a
            maxCount, ignoreCase and afterContext of 2 or more counts one
            file too many in filesSearched (lawsuite seeds 74, 106, 111, …
            of 0..300 ask such a call; none of 0..64 does)
  every-second
            every second answer with a `total` or `filesSearched` (counted
            per process) has 1000 added to it; each wrong answer appends a
            line to $FAKE_LOG
  one-call  answers one call, then exits 3 (each start appends a line to
            $FAKE_LOG)
  append-after
            answers, then appends a line to every file below the call's
            root (the seed-tree vandal of issue 38)
  write-others
            before each answer, appends a line to every file of every other
            tree in the run's temporary directory ($TMPDIR): the outside
            writer of issue 45, whose writes are nobody's fault but its own
  remove-parent
            after its first answer, removes the directory that holds the
            tree it was asked about (the run's temporary directory)
  background-editor
            from its first call on, a thread keeps rewriting the files below
            every root it was asked about and putting their bytes and times
            back
  interrupt-after
            after $FAKE_CALLS answers to calls, appends the harness's
            peak memory (VmHWM of /proc/<parent>/status, in kB) to
            $FAKE_LOG and sends it SIGINT, once
"""
import json
import os
import subprocess
import sys
import threading
import time

LAWSUITE, MODE = sys.argv[1], sys.argv[2]
child = subprocess.Popen([LAWSUITE, "serve", "--peer", "portable"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


def log(text):
    path = os.environ.get("FAKE_LOG")
    if path:
        with open(path, "a") as f:
            f.write(text + "\n")


def files_below(root):
    for base, _, names in os.walk(root):
        for name in names:
            path = os.path.join(base, name)
            if os.path.isfile(path) and not os.path.islink(path):
                yield path


def own_tree(root):
    """The tree lawsuite wrote that `root` is in: the directory right below
    the run's temporary directory ($TMPDIR) holding it; None for a root
    outside one (a call's root may climb out with `..`), which is never
    touched: these peers vandalise their own trees, nothing else."""
    base = os.path.realpath(os.environ.get("TMPDIR") or "/dev/shm")
    real = os.path.realpath(root)
    if not real.startswith(base + os.sep):
        return None
    return os.path.join(base, real[len(base) + 1:].split(os.sep)[0])


def append_to_others(root):
    """Every tree beside `root`'s own in the run's temporary directory
    gets a line appended to each of its files."""
    own = own_tree(root)
    if own is None:
        return
    base = os.path.dirname(own)
    for name in sorted(os.listdir(base)):
        tree = os.path.join(base, name)
        if tree == own or not name.startswith("lawsuite-") or not os.path.isdir(tree):
            continue
        for path in files_below(tree):
            try:
                with open(path, "ab") as f:
                    f.write(b"outsider was here\n")
            except OSError:
                pass


def append_below(root):
    root = own_tree(root)
    if root is None:
        return
    for path in files_below(root):
        try:
            with open(path, "ab") as f:
                f.write(b"vandal was here\n")
        except OSError:
            pass


ROOTS = []


def edit_forever():
    while True:
        for root in list(ROOTS):
            for path in files_below(root):
                try:
                    stat = os.stat(path)
                    with open(path, "rb") as f:
                        data = f.read()
                    with open(path, "wb") as f:
                        f.write(data + b"edited\n")
                    time.sleep(0.001)
                    with open(path, "wb") as f:
                        f.write(data)
                    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
                except OSError:
                    pass
        time.sleep(0.001)


answered = 0
if MODE == "one-call":
    log("start")


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
    if MODE == "write-others":
        params = request.get("params") or {}
        root = params.get("root") if isinstance(params, dict) else None
        if root:
            append_to_others(root)
    if MODE == "rare" and method == "grep" and result is not None:
        params = request["params"]
        if (params.get("limit") == 1 and params.get("maxCount") is not None
                and params.get("ignoreCase") and params.get("afterContext", 0) >= 2):
            result["filesSearched"] += 1
            response["result"] = result
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
    if MODE == "every-second" and isinstance(result, dict):
        key = "total" if "total" in result else "filesSearched" if "filesSearched" in result else None
        if key:
            answered += 1
            if answered % 2 == 0:
                result[key] += 1000
                log("wrong")
    sys.stdout.write(json.dumps(response) + "\n")
    sys.stdout.flush()
    params = request.get("params") or {}
    root = params.get("root") if isinstance(params, dict) else None
    if MODE == "append-after" and root:
        append_below(root)
    if MODE == "remove-parent" and root and not ROOTS:
        ROOTS.append(root)
        import shutil
        tree = own_tree(root)
        if tree is not None:
            shutil.rmtree(os.path.dirname(tree), ignore_errors=True)
    if MODE == "background-editor" and root and own_tree(root) and root not in ROOTS:
        ROOTS.append(root)
        if len(ROOTS) == 1:
            threading.Thread(target=edit_forever, daemon=True).start()
    if MODE == "interrupt-after" and method not in ("initialize", "shutdown"):
        answered += 1
        if answered == int(os.environ["FAKE_CALLS"]):
            with open(f"/proc/{os.getppid()}/status") as status:
                peak = next(l for l in status if l.startswith("VmHWM:")).split()[1]
            log(peak)
            import signal
            os.kill(os.getppid(), signal.SIGINT)
    if MODE == "one-call" and method not in ("initialize", "shutdown"):
        sys.exit(3)
    if method == "shutdown":
        break
child.stdin.close()
child.wait()
