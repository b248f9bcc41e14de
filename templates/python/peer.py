#!/usr/bin/env python3
"""Your search as a lawsuite peer. `lawsuite run` starts it (it is registered
in lawsuite.toml) and judges its answers against every law.

`grep` and `glob` below are plain, deliberately small code: replace them with
calls into your own search. They receive the contract's normalised input
(lawsuite/docs/contract.md §3 and §5) as a dict and answer its outputs (§6);
every failing law names the section it pins. Raise `StdError` for a contract
failure (§17); any other exception is reported as a fault of the peer.
"""

import fnmatch
import os
import re

# The adapter package: lawsuite.toml puts its copy (lawsuite/python) on
# PYTHONPATH; `pip install ./lawsuite/python` installs it as well.
from lawsuite_peer import StdError, serve


def walk(root):
    """Every file under root, root-relative, skipping hidden entries (the
    contract's walk, §7, also skips a fixed list and honours .gitignore); a
    file root is itself ("")."""
    if os.path.isfile(root):
        return [""]
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        rel = os.path.relpath(dirpath, root)
        for name in filenames:
            if not name.startswith("."):
                out.append(name if rel == "." else f"{rel}/{name}")
    return sorted(out)


def checked_root(root):
    if not os.path.exists(root):
        raise StdError("not_found", f"Path not found: {root}", root)


def joined(root, path):
    if not path:
        return root
    return path if root == "." else f"{root.rstrip('/')}/{path}"


def glob(params):
    root, pattern, limit = params["root"], params["pattern"], params["limit"]
    checked_root(root)
    found = [p for p in walk(root)
             if fnmatch.fnmatchcase(p, pattern) or fnmatch.fnmatchcase(p.rsplit("/", 1)[-1], pattern)]
    return {"paths": [joined(root, p) for p in found[:limit]], "total": len(found),
            "truncated": len(found) > limit}


def grep(params):
    root, limit = params["root"], params["limit"]
    checked_root(root)
    source = re.escape(params["pattern"]) if params["fixedStrings"] else params["pattern"]
    regex = re.compile(source, re.IGNORECASE if params["ignoreCase"] else 0)
    matches, files = [], []
    paths = walk(root)
    for path in paths:
        with open(os.path.join(root, path) if path else root, encoding="utf-8", errors="replace") as f:
            lines = f.read().split("\n")
        hit = False
        for number, text in enumerate(lines, 1):
            if len(matches) < limit and regex.search(text):
                matches.append({"file": joined(root, path), "line": number, "text": text,
                                "before": [], "after": []})
                hit = True
        if hit:
            files.append(joined(root, path))
    return {"matches": matches, "files": files, "filesSearched": len(paths),
            "skippedBinary": 0, "truncated": len(matches) >= limit}


serve("mine", "0.1.0", grep=grep, glob=glob)
