// peer.mjs: your search as a lawsuite peer. `lawsuite run` starts it (it is
// registered in lawsuite.toml) and judges its answers against every law.
//
// `grep` and `glob` below are plain, deliberately small code: replace them
// with calls into your own search. They receive the contract's normalised
// input (lawsuite/docs/contract.md §3 and §5) and answer its outputs (§6);
// every failing law names the section it pins. Throw a `StdError` for a
// contract failure (§17); anything else you throw is reported as a fault.
import { readdirSync, readFileSync, statSync } from "node:fs";
// The adapter package: package.json depends on its copy in lawsuite/node, which
// `npm install` links without a registry.
import { serve, StdError } from "lawsuite-peer";

// Every file under `root`, root-relative, skipping hidden entries (the
// contract's walk, §7, also skips a fixed list and honours .gitignore); a
// file root is itself ("").
function walk(root, dir = "") {
  if (!dir && statSync(root).isFile()) return [""];
  const out = [];
  for (const entry of readdirSync(dir ? `${root}/${dir}` : root, { withFileTypes: true })) {
    if (entry.name.startsWith(".")) continue;
    const path = dir ? `${dir}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...walk(root, path));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}

function checkedRoot(root) {
  try {
    statSync(root);
  } catch {
    throw new StdError("not_found", `Path not found: ${root}`, root);
  }
}

const joined = (root, path) => (!path ? root : root === "." ? path : `${root.replace(/\/$/, "")}/${path}`);

// `*` and `?` within a name, `**` across directories (§8 has the rest).
function globRegExp(pattern) {
  const body = pattern
    .split("**/")
    .map((part) => part.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[^/]*").replace(/\?/g, "[^/]"))
    .join("(?:.*/)?");
  return new RegExp(`^${body}$`);
}

function glob({ pattern, root, limit }) {
  checkedRoot(root);
  const re = globRegExp(pattern);
  const found = walk(root).filter((p) => re.test(p) || re.test(p.split("/").pop())).sort();
  return { paths: found.slice(0, limit).map((p) => joined(root, p)), total: found.length, truncated: found.length > limit };
}

function grep({ pattern, root, fixedStrings, ignoreCase, limit }) {
  checkedRoot(root);
  const source = fixedStrings ? pattern.replace(/[.*+?^${}()|[\]\\]/g, "\\$&") : pattern;
  const re = new RegExp(source, ignoreCase ? "i" : "");
  const matches = [];
  const files = [];
  const paths = walk(root).sort();
  for (const path of paths) {
    const lines = readFileSync(path ? `${root}/${path}` : root, "utf8").split("\n");
    let hit = false;
    lines.forEach((text, i) => {
      if (matches.length < limit && re.test(text)) {
        matches.push({ file: joined(root, path), line: i + 1, text, before: [], after: [] });
        hit = true;
      }
    });
    if (hit) files.push(joined(root, path));
  }
  return { matches, files, filesSearched: paths.length, skippedBinary: 0, truncated: matches.length >= limit };
}

serve({ name: "mine", version: "0.1.0", search: { grep, glob } });
