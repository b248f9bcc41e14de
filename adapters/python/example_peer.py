import fnmatch
import os

from lawsuite_peer import StdError, serve


def glob(params):  # the seam: the contract's normalised GlobInput in, a GlobOutput dict out
    root, limit = params["root"], params["limit"]
    if not os.path.exists(root):
        raise StdError("not_found", f"Path not found: {root}", root)
    found = sorted(
        os.path.relpath(os.path.join(d, f), root)
        for d, _, files in os.walk(root)
        for f in files
        if fnmatch.fnmatchcase(f, params["pattern"])
    )
    paths = [os.path.join(root, p) for p in found[:limit]]
    return {"paths": paths, "total": len(found), "truncated": len(found) > limit}


def read(params):  # a flow: the caller's raw JSON in, checked before the path is touched
    path, offset, limit = params.get("path"), params.get("offset", 1), params.get("limit", 2000)
    if not isinstance(path, str):
        raise StdError("invalid_input", "path must be a string")
    for name, value in (("offset", offset), ("limit", limit)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise StdError("invalid_input", f"{name} must be a whole number of at least 1")
    if os.path.isdir(path):
        raise StdError("is_directory", f"Cannot read a directory: {path}", path)
    try:
        with open(path, encoding="utf-8-sig", newline="") as file:
            lines = file.read().split("\n")
    except FileNotFoundError:
        raise StdError("not_found", f"File not found: {path}", path) from None
    if lines[-1] == "":
        lines.pop()
    if offset > max(len(lines), 1):
        raise StdError("offset_out_of_range", f"Line offset {offset} is outside {path}", path)
    page = lines[offset - 1:offset - 1 + limit]
    out = {"content": "\n".join(page), "startLine": offset, "endLine": offset + len(page) - 1,
           "totalLines": len(lines), "truncated": offset - 1 + len(page) < len(lines)}
    if out["truncated"]:
        out["notice"] = f"Showing {len(page)} of {len(lines)} lines; output was truncated."
    return out


serve("my-peer", "0.1.0", glob=glob, read=read)
