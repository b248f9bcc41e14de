#!/usr/bin/env python3
"""An example external lawsuite peer: the contract's `glob`, and the `read`
and `ls` flows of read-ls-flows.md, in Python.

The protocol (peers/PROTOCOL.md) is adapters/python/lawsuite_peer.py's: this
file is only the peer's own code, and `serve(...)` at the end. It declares
`glob`, `flow/read` and `flow/ls`, so the harness skips its `grep` calls
instead of counting them as divergences, and the shared ground (plain files
and directories). `read` and `ls` are written from the spec's text alone, so
the harness compares two independent implementations of them.

Standard library only. The semantics follow search-contract §5-§9, §14 and
§16 closely enough to agree with the portable peer on the kit's seeds: the
walk (skip list, hidden rule, .gitignore scopes, symlinked files dropped),
caller globs (canonical form, brace expansion, `*`, `?`, `**`, by path or by
basename), UTF-16 ordering, and the truncation, unsatisfiable-glob and
ignore notices.

Run it by hand:

    printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocol":{"min":1,"max":1}}}' \\
      | python3 peers/examples/glob_peer.py
"""

import os
import re
import stat
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "adapters", "python"))
from lawsuite_peer import RpcError, StdError, serve  # noqa: E402

# search-contract §7.3: skipped at every depth, whatever hidden/noIgnore say.
SKIP_LIST = {
    ".git", ".hg", ".jj", ".svn", ".flows", ".artifacts", ".backend-go-modcache",
    ".pnpm-store", ".worktrees", "worktrees", ".flows-checkpoints",
    ".flows-test-base", "node_modules", "__pycache__", ".venv", ".tox", ".nox",
    ".eggs", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".gradle", ".turbo",
    ".next",
}

IGNORE_NOTICE = ("No results; ignore files excluded paths. "
                 "Retry with noIgnore: true to include them.")

# The regex pieces shared by globs and .gitignore rules, over bytes.
STAR = b"[^/]*"
QMARK = b"[^/]"
ANYTHING = b"[^\n\r]*"
ANY_DIRS = b"(?:[^\n\r]*/)?"
MAX_BRACE_EXPANSIONS = 256


# --- paths (§6.4) and ordering ---------------------------------------------

def normalize_path(path):
    if path == "":
        return "."
    absolute = path.startswith("/")
    trailing = path.endswith("/")
    parts = []
    for seg in path.split("/"):
        if seg in ("", "."):
            continue
        if seg == "..":
            if parts and parts[-1] != "..":
                parts.pop()
            elif not absolute:
                parts.append("..")
            continue
        parts.append(seg)
    out = "/".join(parts)
    if out == "" and not absolute:
        out = "."
    if trailing and out and not out.endswith("/"):
        out += "/"
    return "/" + out if absolute else out


def join_path(base, rel):
    return normalize_path(f"{base}/{rel}" if base else rel)


def utf16_key(text):
    # Big-endian UTF-16 bytes compare like sequences of code units.
    return text.encode("utf-16-be", "surrogatepass")


# --- caller globs (§8) -----------------------------------------------------

def canonical_glob(glob):
    bang, p = ("!", glob[1:]) if glob.startswith("!") else ("", glob)
    p = p.rstrip(" ")
    p = re.sub(r"/\.(?=/)", "", p)
    if p.startswith("./"):
        p = "/" + p[2:]
    return bang + p


def brace_expansions(canonical):
    out, pending = [], [canonical]
    while pending and len(out) < MAX_BRACE_EXPANSIONS:
        text = pending.pop()
        open_ = text.find("{")
        close = text.find("}", open_) if open_ >= 0 else -1
        if open_ < 0 or close < 0 or "," not in text[open_ + 1:close]:
            out.append(text)
            continue
        prefix, inner, suffix = text[:open_], text[open_ + 1:close], text[close + 1:]
        for part in reversed(inner.split(",")):
            pending.append(prefix + part + suffix)
    return out


def literal(byte):
    return re.escape(bytes([byte]))


def translate_glob(remainder):
    b = remainder.encode("utf-8")
    out, i = [], 0
    while i < len(b):
        c = b[i]
        if (c == 0x2A and b[i + 1:i + 2] == b"*" and (i == 0 or b[i - 1] == 0x2F)
                and b[i + 2:i + 3] in (b"", b"/")):
            if i + 2 < len(b):
                # `**/**/` matches what one `**/` does; written once, a glob
                # of 87,000 of them stays one small regex.
                if not out or out[-1] is not ANY_DIRS:
                    out.append(ANY_DIRS)
                i += 3
            else:
                out.append(ANYTHING)
                i += 2
            continue
        out.append(STAR if c == 0x2A else QMARK if c == 0x3F else literal(c))
        i += 1
    return b"".join(out)


def compile_alternatives(alternatives):
    if not alternatives:
        return None
    return re.compile(b"(?:" + b"|".join(alternatives) + b")")


class GlobMatcher:
    def __init__(self, glob):
        by_path, by_name = [], []
        for expansion in brace_expansions(canonical_glob(glob)):
            rooted = expansion.startswith("/")
            rest = expansion[1:] if rooted else expansion
            (by_path if rooted or "/" in rest else by_name).append(translate_glob(rest))
        self.by_path = compile_alternatives(by_path)
        self.by_name = compile_alternatives(by_name)

    def is_match(self, relative, basename):
        return bool(
            (self.by_path and self.by_path.fullmatch(relative.encode("utf-8")))
            or (self.by_name and self.by_name.fullmatch(basename.encode("utf-8"))))


class GlobList:
    """§8.4: the last matching glob decides; no positive glob admits all."""

    def __init__(self, globs):
        self.globs = [(g.startswith("!"), GlobMatcher(g[1:] if g.startswith("!") else g))
                      for g in globs]
        self.default = all(negated for negated, _ in self.globs)

    def includes(self, relative, basename):
        for negated, matcher in reversed(self.globs):
            if matcher.is_match(relative, basename):
                return not negated
        return self.default


# --- .gitignore (§9) -------------------------------------------------------

JS_WHITESPACE = ("\t\n\x0b\x0c\r \xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005"
                 "\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff")


def translate_class(b, open_):
    """A `[...]` class: (regex, end), "literal" when unclosed, None when invalid."""
    start = open_ + 1
    negated = b[start:start + 1] in (b"!", b"^")
    if negated:
        start += 1
    search_from = start + 1 if b[start:start + 1] == b"]" else start
    close = b.find(b"]", search_from)
    if close < 0:
        return "literal"
    members = b[start:close]
    out, m = [b"[^" if negated else b"["], 0
    while m < len(members):
        if m + 2 < len(members) and members[m + 1] == 0x2D:
            lo, hi = members[m], members[m + 2]
            if lo > hi:
                return None
            out += [literal(lo), b"-", literal(hi)]
            m += 3
        else:
            out.append(literal(members[m]))
            m += 1
    out.append(b"]")
    return b"".join(out), close + 1


def translate_rule(b):
    """§9.3: a rule's text to a regex body, or None (the rule is dropped)."""
    groups = [[[], []]]  # each: [finished alternatives, current pieces]

    def end_alternative(group):
        alt = b"".join(group[1])
        group[1] = []
        if alt:
            group[0].append(alt)

    i = 0
    while i < len(b):
        c = b[i]
        out = groups[-1][1]
        if c == 0x5C:  # backslash
            if i + 1 >= len(b):
                return None
            out.append(literal(b[i + 1]))
            i += 2
            continue
        if c == 0x5B:  # [
            cls = translate_class(b, i)
            if cls is None:
                return None
            if cls != "literal":
                out.append(cls[0])
                i = cls[1]
                continue
            out.append(literal(c))
        elif c == 0x7B:  # {
            groups.append([[], []])
        elif c == 0x2C and len(groups) > 1:  # ,
            end_alternative(groups[-1])
        elif c == 0x7D:  # }
            if len(groups) == 1:
                return None
            group = groups.pop()
            end_alternative(group)
            if group[0]:
                groups[-1][1].append(b"(?:" + b"|".join(group[0]) + b")")
        elif (c == 0x2A and b[i + 1:i + 2] == b"*"
              and (i == 0 or b[i - 1] in b"/{,")
              and (i + 2 >= len(b) or b[i + 2] in b"/},")):
            if b[i + 2:i + 3] == b"/":
                # As in translate_glob: `**/**/` is one `**/`.
                if not out or out[-1] is not ANY_DIRS:
                    out.append(ANY_DIRS)
                i += 3
            else:
                out.append(ANYTHING)
                i += 2
            continue
        elif c == 0x2A:
            out.append(STAR)
        elif c == 0x3F:
            out.append(QMARK)
        else:
            out.append(literal(c))
        i += 1
    if len(groups) != 1:
        return None
    return b"".join(groups[0][1])


def parse_gitignore(content):
    if content.startswith("\ufeff"):
        content = content[1:]
    rules = []
    for line in content.split("\n"):
        if line.endswith("\r"):
            line = line[:-1]
        if line.startswith("#"):
            continue
        text = line if line.endswith("\\ ") else line.rstrip(JS_WHITESPACE)
        if not text:
            continue
        negated = text.startswith("!")
        text = text[1:] if negated else text
        anchored = text.startswith("/")
        text = text[1:] if anchored else text
        dir_only = text.endswith("/")
        if dir_only:
            text = text[:-1]
            if text.endswith("\\"):
                text = text[:-1]
        body = translate_rule(text.encode("utf-8"))
        if body is None:
            continue
        try:
            regex = re.compile(body)
        except re.error:
            continue
        rules.append((negated, dir_only, anchored or "/" in text, regex))
    return rules


def is_ignored(scopes, relative, is_dir):
    basename = relative.rsplit("/", 1)[-1]
    for scope_dir, rules in reversed(scopes):
        if scope_dir:
            if not relative.startswith(scope_dir + "/"):
                continue
            subject = relative[len(scope_dir) + 1:]
        else:
            subject = relative
        for negated, dir_only, by_path, regex in reversed(rules):
            if dir_only and not is_dir:
                continue
            if regex.fullmatch((subject if by_path else basename).encode("utf-8")):
                return not negated
    return False


# --- the walk (§7) ---------------------------------------------------------

def cannot_search(root, err):
    if isinstance(err, FileNotFoundError):
        return StdError("not_found", f"Path not found: {root}", root)
    code = "permission_denied" if isinstance(err, PermissionError) else "command_failed"
    return StdError(code, f"Cannot search {root}: {err.strerror}", root)


def walk(root, hidden, no_ignore, globs):
    """Candidate paths (sorted) and whether ignore rules dropped something."""
    try:
        is_file = stat.S_ISREG(os.stat(root).st_mode)
    except OSError as err:
        raise cannot_search(root, err) from err
    if is_file:
        return [normalize_path(root)], False
    files, state = [], {"ignored": False}

    def descend(directory, rel_dir, scopes):
        try:
            entries = list(os.scandir(directory))
        except OSError as err:
            if not rel_dir:
                raise cannot_search(root, err) from err
            return
        names = []
        for entry in entries:
            try:
                entry.name.encode("utf-8")
            except UnicodeEncodeError:
                continue  # a name that is not UTF-8 is dropped
            names.append(entry)
        pushed = False
        if not no_ignore and any(e.name == ".gitignore" for e in names):
            try:
                with open(os.path.join(directory, ".gitignore"), "rb") as f:
                    content = f.read().decode("utf-8", "replace")
            except OSError:
                content = ""
            rules = parse_gitignore(content)
            if rules:
                scopes.append((rel_dir, rules))
                pushed = True
        subdirs = []
        for entry in names:
            name = entry.name
            if name in SKIP_LIST or (not hidden and name.startswith(".")):
                continue
            try:
                symlink = entry.is_symlink()
                is_dir = entry.is_dir()
                is_file = entry.is_file()
            except OSError:
                continue
            relative = f"{rel_dir}/{name}" if rel_dir else name
            if scopes and is_ignored(scopes, relative, is_dir):
                if is_dir or globs.includes(relative, name):
                    state["ignored"] = True
                continue
            if is_dir and not symlink:
                subdirs.append((relative, entry.path))
            elif is_file and not is_dir:
                files.append((relative, symlink))
        for relative, path in subdirs:
            descend(path, relative, scopes)
        if pushed:
            scopes.pop()

    descend(root, "", [])
    paths = [join_path(root, rel) for rel, symlink in files
             if globs.includes(rel, rel.rsplit("/", 1)[-1]) and not symlink]
    paths.sort(key=utf16_key)
    return paths, state["ignored"]


# --- notices (§14, §16) ----------------------------------------------------

def literal_dir_segments(expansion):
    if "/" not in expansion:
        return []
    rest = expansion[1:] if expansion.startswith("/") else expansion
    segments = [s for s in rest.split("/") if s]
    for i, seg in enumerate(segments):
        if any(ch in seg for ch in "*?{}"):
            return segments[:i]
    return segments[:-1]


def unsatisfiable_sentence(root, glob, hidden):
    canonical = canonical_glob(glob)
    first_reason = None
    for expansion in brace_expansions(canonical):
        segments = literal_dir_segments(expansion)
        if not segments:
            return None
        skipped = next((s for s in segments if s in SKIP_LIST), None)
        if skipped is not None:
            reason = (f"{skipped} is never descended into; "
                      "name it as the search root to look inside it")
        elif not hidden and any(s.startswith(".") for s in segments):
            reason = "hidden paths are excluded unless hidden is true"
        else:
            directory = "/".join(segments)
            if os.path.isdir(join_path(root, directory)):
                return None
            reason = f"there is no {directory} directory there"
        if first_reason is None:
            first_reason = reason
    if first_reason is None:
        return None
    stripped_glob, stripped_root = canonical.lstrip("/"), root.strip("/")
    if stripped_root and stripped_glob.startswith(stripped_root + "/"):
        suffix = stripped_glob[len(stripped_root) + 1:]
        return (f'No file under {root} can match "{glob}": glob patterns are relative '
                f'to the search root, so use "{suffix}" instead.')
    return f'No file under {root} can match "{glob}": {first_reason}.'


def empty_answer_notice(root, globs, hidden, no_ignore, ignored):
    if not os.path.isdir(root):
        return None
    positives = [g for g in globs if not g.startswith("!")]
    sentences = [s for s in (unsatisfiable_sentence(root, g, hidden) for g in positives) if s]
    if sentences and len(sentences) == len(positives):
        return " ".join(sentences)
    if not no_ignore and ignored:
        sentences.append(IGNORE_NOTICE)
    return " ".join(sentences) if sentences else None


# --- the method --------------------------------------------------------------

def glob(params):
    pattern, root = params["pattern"], params["root"]
    hidden, no_ignore, limit = params["hidden"], params.get("noIgnore", False), params["limit"]
    found, ignored = walk(root, hidden, no_ignore, GlobList([pattern]))
    total = len(found)
    paths = found[:limit]
    out = {"paths": paths, "total": total, "truncated": total > limit}
    if total > limit:
        out["notice"] = f"Showing {len(paths)} of {total} entries; output was truncated."
    elif total == 0:
        notice = empty_answer_notice(root, [pattern], hidden, no_ignore, ignored)
        if notice is not None:
            out["notice"] = notice
    return out


# --- read-ls-flows.md: read (§1) and ls (§2) -------------------------------
#
# Written from the spec's text, not from lawsuite's Rust handlers, so the
# harness compares two independent readings of it. Where the spec leaves a
# choice open, this follows the decision the matching law in laws/read/ or
# laws/ls/ names (0 refused with invalid_input, hint names listed in UTF-16
# order).

DEFAULT_READ_LIMIT = 2000
MAX_ENTRIES = 1000
MAX_LINE_CHARS = 2000
MAX_OUTPUT_BYTES = 60000
MAX_READ_FILE_BYTES = 67108864
HINT_NAMES = 12
LONG_LINE_NOTE = (" Lines longer than 2000 Unicode scalar values are clipped, "
                  "so such a line is not an edit anchor.")


def truncation_notice(shown, total, unit):
    return f"Showing {shown} of {total} {unit}; output was truncated."


def paging_field(flow, params, field, default):
    """`offset`/`limit`: an integer >= 1 (§1.1, §2.1); absent means `default`."""
    value = params.get(field)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise RpcError(-32602, f"the params of flow/{flow} are not valid: {field} must be a non-negative integer")
    if value == 0:
        raise StdError("invalid_input",
                            f"Invalid {flow} input: {field} must be an integer of at least 1, got 0")
    return value


def read_side(path, err, not_found):
    """The spec's read-side mapping of a host failure."""
    if isinstance(err, PermissionError):
        return StdError("permission_denied", f"Permission denied: {path}", path)
    if isinstance(err, FileNotFoundError):
        return StdError("not_found", not_found, path)
    return StdError("command_failed", f"Could not read {path}: {err.strerror or err}", path)


def not_found_hint(path):
    """§1.6: for a relative path, what the nearest listable directory holds.
    (A relative path is the working directory's: the adapter runs the call
    in the `cwd` lawsuite gives, as the spec's host would be.)"""
    if path.startswith("/") or ".." in path.split("/"):
        return ""
    segs = [seg for seg in path.split("/") if seg not in ("", ".")]
    for depth in range(len(segs) - 1, -1, -1):
        directory = "/".join(segs[:depth]) if depth else "."
        try:
            names = sorted(os.listdir(directory), key=utf16_key)
        except OSError:
            continue
        missing = segs[depth].lower()

        def score(name):
            n = 0
            for a, b in zip(name.lower(), missing):
                if a != b:
                    break
                n += 1
            return n

        visible = [name for name in names if not name.startswith(".")]
        if not visible:
            return ""
        ranked = sorted(visible, key=score, reverse=True)  # stable: ties keep order
        label = directory if depth else "The working directory"
        more = f" and {len(ranked) - HINT_NAMES} more" if len(ranked) > HINT_NAMES else ""
        return f". {label} holds: {', '.join(ranked[:HINT_NAMES])}{more}."
    return ""


def source_lines(text):
    """§1.4: split on \\n only; a final \\n ends the last line; "" has none."""
    if text == "":
        return []
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    return lines


def flow_read(params):
    path = params["path"]
    offset = paging_field("read", params, "offset", 1)
    limit = paging_field("read", params, "limit", DEFAULT_READ_LIMIT)
    not_found = f"File not found: {path}"
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise StdError("not_found", not_found + not_found_hint(path), path)
    except OSError as err:
        raise read_side(path, err, not_found)
    if stat.S_ISDIR(info.st_mode):
        raise StdError("is_directory", f"Cannot read a directory: {path}", path)
    if not stat.S_ISREG(info.st_mode):
        raise StdError("not_found", not_found, path)

    def too_large(size):
        return StdError("response_too_large",
                             f"{path} is {size} bytes, over the {MAX_READ_FILE_BYTES}-byte read "
                             "limit; search it with grep or print a line range with bash", path)

    if info.st_size > MAX_READ_FILE_BYTES:
        raise too_large(info.st_size)
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_READ_FILE_BYTES + 1)
    except OSError as err:
        raise read_side(path, err, not_found)
    if len(data) > MAX_READ_FILE_BYTES:
        raise too_large(len(data))
    if b"\0" in data:
        raise StdError("binary_file", f"Cannot read binary file: {path}", path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise StdError("binary_file", f"File is not valid UTF-8: {path}", path)
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = source_lines(text)
    total = len(lines)
    if offset > max(total, 1):
        raise StdError("offset_out_of_range", f"Line offset {offset} is outside {path}", path)

    # §1.5. Python strings index code points, which for valid UTF-8 are the
    # spec's Unicode scalar values.
    page_end = min(total, offset + limit - 1)
    page = lines[offset - 1:page_end]
    long_lines = any(len(line) > MAX_LINE_CHARS for line in page)
    content = "\n".join(line[:MAX_LINE_CHARS] for line in page)
    encoded = content.encode("utf-8")
    byte_truncated = len(encoded) > MAX_OUTPUT_BYTES
    if byte_truncated:
        cut = MAX_OUTPUT_BYTES
        while cut > 0 and encoded[cut] & 0xC0 == 0x80:  # inside a scalar
            cut -= 1
        newline = encoded.rfind(b"\n", 0, cut)
        content = encoded[:newline].decode("utf-8") if newline >= 0 else ""
        shown = content.count("\n") + 1 if content else 0
    else:
        shown = len(page)
    truncated = long_lines or byte_truncated or page_end < total
    out = {"content": content, "startLine": offset, "endLine": offset + shown - 1,
           "totalLines": total, "truncated": truncated}
    if truncated:
        out["notice"] = truncation_notice(shown, total, "lines") + (LONG_LINE_NOTE if long_lines else "")
    return out


def flow_ls(params):
    path = params["path"]
    offset = paging_field("ls", params, "offset", 1)
    limit = min(paging_field("ls", params, "limit", DEFAULT_READ_LIMIT), MAX_ENTRIES)
    not_found = f"Directory not found: {path}"
    try:
        info = os.stat(path)
    except OSError as err:
        raise read_side(path, err, not_found)
    if not stat.S_ISDIR(info.st_mode):
        raise StdError("not_a_directory", f"Cannot list a file: {path}", path)
    try:
        names = os.listdir(path)
    except OSError as err:
        raise read_side(path, err, not_found)
    total = len(names)
    if offset > max(total, 1):
        raise StdError("offset_out_of_range",
                            f"Entry offset {offset} is outside {path}, which has {total} entries", path)
    entries = []
    for name in names:
        try:
            is_dir = stat.S_ISDIR(os.stat(os.path.join(path, name)).st_mode)
        except OSError:  # a dangling link, a denied entry: a file (§2.3 step 5)
            is_dir = False
        # Undecodable bytes (surrogate escapes) are shown as U+FFFD.
        shown = name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
        if is_dir:
            entries.append({"name": shown + "/", "kind": "directory"})
        else:
            entries.append({"name": shown, "kind": "file"})
    entries.sort(key=lambda e: (e["kind"] != "directory", utf16_key(e["name"])))
    page = entries[offset - 1:offset - 1 + limit]
    truncated = offset - 1 + len(page) < total
    out = {"entries": page, "total": total, "truncated": truncated}
    if truncated:
        out["notice"] = truncation_notice(len(page), total, "entries")
    return out


if __name__ == "__main__":
    serve("python-glob", "0.1.0", glob=glob, read=flow_read, ls=flow_ls)
