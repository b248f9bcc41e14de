// The test peers of ./fixture through the real `lawsuite` binary
// (LAWSUITE_BIN, else `lawsuite` on PATH; tests/node_adapter.rs passes the
// one cargo built): verdicts of `lawsuite run` and an answer of `lawsuite
// call`, for an Effect-based peer that is right, one that is wrong, one that
// throws and one that never answers.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const LAWS = here("./laws");
const BIN = process.env.LAWSUITE_BIN || "lawsuite";
const found = spawnSync(BIN, ["--version"], { encoding: "utf8" }).status === 0;
const skip = !found && !process.env.CI
  ? `no lawsuite binary (set LAWSUITE_BIN, or run cargo test --test node_adapter)` : false;

/** A project registering the fixture peers; its lawsuite.toml's path. */
function project() {
  const dir = mkdtempSync(join(tmpdir(), "lawsuite-node-"));
  const peer = (name, file, extra = "") =>
    `[[peer]]\nname = "${name}"\ncommand = ["node", ${JSON.stringify(here(`./fixture/${file}`))}]\n${extra}`;
  writeFileSync(join(dir, "lawsuite.toml"), [
    'reference = "portable"',
    '[[peer]]\nname = "portable"\nbuiltin = "portable"',
    peer("right", "right-peer.js"),
    peer("layer", "layer-peer.js"),
    peer("wrong", "wrong-peer.js"),
    peer("throws", "throwing-peer.js"),
    peer("never", "silent-peer.js", "timeout_ms = 1000"),
  ].join("\n"));
  return join(dir, "lawsuite.toml");
}

function lawsuite(args) {
  const run = spawnSync(BIN, args, { encoding: "utf8", timeout: 300000, maxBuffer: 1 << 28 });
  assert.ok(run.status !== null, `lawsuite ${args.join(" ")} did not finish: ${run.error}`);
  return run;
}

function verdicts(run) {
  const report = JSON.parse(run.stdout);
  const byPeer = {};
  for (const o of report.outcomes) {
    if (!o.peer) continue;
    (byPeer[o.peer] ??= {})[o.item.replace(/^law::/, "")] = o;
  }
  return { report, byPeer };
}

const toml = project();
const base = ["run", "--project", toml, "--laws", LAWS, "--no-seeds", "--no-regressions", "--format", "json"];
// Shipped law files the small Search passes whole (it implements their part
// of the contract), beside the adapter's own laws.
const SHIPPED = ["glob::output", "glob::glob-test", "grep::case", "grep::binary", "walk::hidden", "walk::paths", "read::lines"];

test("the right peer passes its laws and the shipped files it implements", { skip }, () => {
  const run = lawsuite([...base, "--peer", "right", "law::adapter::", ...SHIPPED.map((l) => `law::${l}::`)]);
  const { report, byPeer } = verdicts(run);
  const mine = Object.values(byPeer.right);
  const failing = mine.filter((o) => o.verdict !== "pass").map((o) => `${o.item}: ${o.report?.summary}`);
  assert.deepEqual(failing, []);
  assert.ok(mine.length >= 90, `only ${mine.length} trials`);
  assert.ok(Object.keys(byPeer.right).some((id) => id.startsWith("adapter::read-a-relative-path-resolves-against-cwd")));
  assert.equal(report.summary.byPeer.right.fail, 0);
  assert.equal(run.status, 0, run.stderr.slice(-2000));
});

test("the README's peer, its Search from a Layer, passes the same and decodes its read input", { skip }, () => {
  const run = lawsuite([...base, "--peer", "layer", "law::adapter::", "law::read::input::", ...SHIPPED.map((l) => `law::${l}::`)]);
  const { byPeer } = verdicts(run);
  const mine = Object.values(byPeer.layer);
  const failing = mine.filter((o) => o.verdict !== "pass").map((o) => `${o.item}: ${o.report?.summary}`);
  assert.deepEqual(failing, []);
  assert.ok(Object.keys(byPeer.layer).filter((id) => id.startsWith("read::input::")).length >= 5);
  assert.equal(run.status, 0, run.stderr.slice(-2000));
});

test("a read flow bound to a run that expects decoded input fails the input laws", { skip }, () => {
  const run = lawsuite([...base, "--peer", "right", "law::read::input::"]);
  const { byPeer } = verdicts(run);
  const failing = Object.entries(byPeer.right).filter(([, o]) => o.verdict === "fail").map(([id]) => id);
  assert.ok(failing.length >= 2, `the right peer binds Read.run, which skips decoding: ${failing}`);
  assert.equal(run.status, 1);
});

test("the wrong, throwing and silent peers fail, each for its reason", { skip }, () => {
  const run = lawsuite([...base, "--peer", "wrong", "--peer", "throws", "--peer", "never", "law::adapter::"]);
  assert.equal(run.status, 1, run.stderr.slice(-2000));
  const { byPeer } = verdicts(run);
  const failing = (peer) => Object.entries(byPeer[peer]).filter(([, o]) => o.verdict === "fail").map(([id]) => id.split("::")[1]).sort();

  // Wrong: a diff of answers, no fault.
  assert.deepEqual(failing("wrong"), [
    "glob-paths-sort-by-utf16-code-units",
    "grep-context-lines",
    "grep-limit-truncates-and-says-so",
    "grep-reports-every-matching-line",
    "read-a-relative-path-resolves-against-cwd",
    "read-pages-by-offset-and-limit",
  ]);
  const sort = byPeer.wrong["adapter::glob-paths-sort-by-utf16-code-units"].report;
  assert.deepEqual(sort.cases[0].actual.paths, ["😀.txt", "a.txt", "B.txt", "é.txt", "ｚ.txt"]);
  assert.equal(sort.health, undefined);

  // Throws: every law fails, each call a fault naming the host's error and where.
  assert.equal(failing("throws").length, 11);
  const faults = Object.values(byPeer.throws).flatMap((o) => o.report.health.recent);
  const said = (re) => assert.ok(faults.some((f) => re.test(f)), `no fault like ${re}:\n${faults.join("\n")}`);
  said(/error_response during grep: answered JSON-RPC error -32603 \(grep died \(an Effect defect\): TypeError: grep blew up in the host \(at .*throwing-peer\.js:\d+:\d+\)\)/);
  said(/error_response during glob: .*glob threw: RangeError: glob blew up in the host \(at .*throwing-peer\.js/);
  said(/error_response during flow\/read: .*flow\/read failed with an error that is not a StdError: Error: read failed without a StdError/);
  for (const o of Object.values(byPeer.throws)) {
    assert.equal(o.report.cases[0].actual.failure, "request_failed", o.item);
  }

  // Never: timeouts, then the harness stops restarting it; nothing passes.
  const never = Object.values(byPeer.never);
  assert.equal(never.filter((o) => o.verdict === "pass").length, 0);
  const timeouts = never.flatMap((o) => o.report?.health?.recent ?? []).filter((f) => /timeout during .*no answer within 1000 ms/.test(f));
  assert.ok(timeouts.length >= 1, JSON.stringify(never, null, 1).slice(0, 3000));
  assert.ok(never.some((o) => o.report?.cases?.[0]?.actual?.failure === "timeout"));
});

test("lawsuite call: a host's StdError is the contract failure", { skip }, () => {
  const ok = lawsuite(["call", "--project", toml, "--peer", "right", "glob",
    JSON.stringify({ pattern: "*.js", root: here("./fixture"), hidden: false, noIgnore: false, limit: 2 })]);
  assert.equal(ok.status, 0, ok.stderr);
  const answer = JSON.parse(ok.stdout);
  assert.deepEqual(answer.paths, [here("./fixture/chatty-peer.js"), here("./fixture/effect.js")]);
  assert.equal(answer.truncated, true);

  const missing = lawsuite(["call", "--project", toml, "--peer", "right", "flow/grep", JSON.stringify({ pattern: "x", root: "/no/such/dir" })]);
  assert.equal(missing.status, 1);
  assert.match(missing.stdout + missing.stderr, /not_found/);
  assert.match(missing.stdout + missing.stderr, /Path not found: \/no\/such\/dir/);
});
