// The test peers of ./fixture through the real `lawsuite` binary
// (LAWSUITE_BIN, else `lawsuite` on PATH; tests/node_adapter.rs passes the
// one cargo built): verdicts of `lawsuite run` and an answer of `lawsuite
// call`, for an Effect-based peer that is right, one that is wrong, one that
// throws and one that never answers.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
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
    peer("std", "std-peer.js"),
    peer("std-decode-all", "std-misbound-peer.js", 'env = { BINDING = "decode-all" }\n'),
    peer("std-unmapped", "std-misbound-peer.js", 'env = { BINDING = "unmapped" }\n'),
    peer("platform", "platform-peer.js"),
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

// The laws a @smthrs/std host's binding decides (the flow layer's own
// checks, read and ls input), beside laws of every flow the small Search
// implements.
const BINDING_LAWS = ["input::validation::", "glob::validation::", "read::input::", "ls::input::", "glob::kit::kit-7-5-26-max-count-zero"];
// What binding grep and glob through their schemas costs: the laws that pin
// Grep.run's and Glob.run's own checks, which a schema refuses first.
const SCHEMA_REFUSES = [
  "glob::kit::kit-7-5-26-max-count-zero",
  "glob::validation::empty-glob-is-rejected",
  "input::validation::case-conflict-is-checked-before-context-conflict",
  "input::validation::context-conflict-is-checked-before-max-count",
  "input::validation::drift-11-max-count-zero-is-refused",
  "input::validation::max-count-is-checked-before-the-pattern",
];
// What letting a schema error through costs: the read and ls input laws
// that expect invalid_input, each a fault instead.
const SCHEMA_ERROR_IS_A_FAULT = [
  "ls::input::limit-zero-is-invalid-input",
  "ls::input::offset-zero-is-invalid-input",
  "read::input::input-is-checked-before-the-path",
  "read::input::limit-zero-is-invalid-input",
  "read::input::offset-zero-is-invalid-input",
];
const failingLaws = (outcomes) => Object.entries(outcomes ?? {})
  .filter(([, o]) => o.verdict !== "pass").map(([id]) => id).sort();

test("the README's @smthrs/std peer passes the binding laws and the shipped files it implements", { skip }, () => {
  const run = lawsuite([...base, "--peer", "std", "law::adapter::", ...BINDING_LAWS.map((l) => `law::${l}`), ...SHIPPED.map((l) => `law::${l}::`)]);
  const { byPeer } = verdicts(run);
  const mine = Object.values(byPeer.std);
  const failing = mine.filter((o) => o.verdict !== "pass").map((o) => `${o.item}: ${o.report?.summary}`);
  assert.deepEqual(failing, []);
  for (const area of ["input::validation::", "glob::validation::", "read::input::", "ls::input::", "adapter::"]) {
    assert.ok(Object.keys(byPeer.std).filter((id) => id.startsWith(area)).length >= 5, area);
  }
  assert.equal(run.status, 0, run.stderr.slice(-2000));
});

test("the README's counts of those laws are the lists these tests check", () => {
  const readme = readFileSync(here("../README.md"), "utf8").replace(/\s+/g, " ");
  assert.ok(readme.includes(`${SCHEMA_REFUSES.length} laws fail that way`), "the decode-all count");
  assert.ok(readme.includes(`(${SCHEMA_ERROR_IS_A_FAULT.length} \`read::input\`/\`ls::input\` laws fail so)`), "the unmapped count");
  assert.ok(readme.includes("passes the `input::validation`, `glob::validation`, `read::input` and `ls::input` laws whole"));
  assert.deepEqual(BINDING_LAWS.slice(0, 4), ["input::validation::", "glob::validation::", "read::input::", "ls::input::"]);
});

test("grep and glob decoded with their schemas fail the laws of their own checks", { skip }, () => {
  const run = lawsuite([...base, "--peer", "std-decode-all", ...BINDING_LAWS.map((l) => `law::${l}`)]);
  assert.deepEqual(failingLaws(verdicts(run).byPeer["std-decode-all"]), SCHEMA_REFUSES);
  assert.equal(run.status, 1);
});

test("read and ls with a schema error let through fail their input laws as faults, said in the contract's words", { skip }, () => {
  const run = lawsuite([...base, "--peer", "std-unmapped", ...BINDING_LAWS.map((l) => `law::${l}`)]);
  const outcomes = verdicts(run).byPeer["std-unmapped"];
  assert.deepEqual(failingLaws(outcomes), SCHEMA_ERROR_IS_A_FAULT);
  for (const law of SCHEMA_ERROR_IS_A_FAULT) {
    const o = Object.entries(outcomes).find(([id]) => id.startsWith(law))[1];
    const faults = o.report.health.recent.join("\n");
    assert.match(faults, /flow\/(read|ls) failed with an error that is not a StdError: SchemaError: Expected a value greater than or equal to 1\n  at \["(offset|limit)"\]( \(at [^\n]*\))?; the contract answers/, law);
    assert.match(faults, /the contract answers input its schema refuses with invalid_input/, law);
  }
});

test("a host's unmapped file-system failure is explained in the contract's words", { skip }, () => {
  const run = lawsuite([...base, "--peer", "platform", "law::errors::codes::root-below-a-file-is-command-failed",
    "law::errors::codes::missing-root-at-the-peer", "law::read::procedure::a-file-used-as-a-directory-is-another-failure"]);
  const { report, byPeer } = verdicts(run);
  const said = (law) => Object.entries(byPeer.platform).find(([id]) => id.startsWith(law))[1].report.health.recent.join("\n");
  assert.match(said("errors::codes::root-below-a-file-is-command-failed"),
    /grep failed with an error that is not a StdError: PlatformError: BadResource: FileSystem\.stat .*; search-contract §7\.1 answers a host reason other than NotFound and PermissionDenied \(BadResource, ENOTDIR\) with command_failed «Cannot search \{root\}: \{host error message\}» when the root fails: fail with a StdError of that code/);
  assert.match(said("errors::codes::missing-root-at-the-peer"),
    /search-contract §7\.1 answers the host reason NotFound \(NotFound, ENOENT\) with not_found «Path not found: \{root\}»/);
  assert.match(said("read::procedure::a-file-used-as-a-directory-is-another-failure"),
    /flow\/read threw: Error: ENOTDIR: not a directory.*; read-ls-flows' read-side mapping answers a host reason other than NotFound and PermissionDenied \(ENOTDIR\) with command_failed «Could not read \{path\}: \{host error message\}»/);
  // The law's own explanation is the contract's too: no library's words.
  const why = report.outcomes.filter((o) => o.peer === "platform").map((o) => JSON.stringify(o.report)).join("\n");
  assert.doesNotMatch(why, /@effect\/platform-node maps/);
  assert.match(why, /neither NotFound nor PermissionDenied/);
});

test("a host error quoting a megabyte is a fault of bounded size that names it", { skip }, () => {
  const run = lawsuite([...base, "--peer", "platform", "law::gitignore::long-lines::a-rule-of-1-mib-applies"]);
  const [outcome] = Object.values(verdicts(run).byPeer.platform);
  const faults = outcome.report.health.recent.join("\n");
  // The README's "a 3 MB message": what V8 said, less what was kept.
  const left = Number(/\[(\d+) characters left out\]/.exec(faults)?.[1]);
  assert.ok(left > 3_000_000, `${left} characters left out`);
  assert.match(readFileSync(here("../README.md"), "utf8").replace(/\s+/g, " "), /a 1 MiB `\.gitignore` rule fails with a 3 MB message/);
  assert.match(faults, /glob threw: SyntaxError: Invalid regular expression: \/\^\(\?:\.\*\\\/\)\?.*… \[\d+ characters left out\] ….*x\$\/: Stack overflow/);
  assert.doesNotMatch(JSON.stringify(outcome.report), /answered \d+ bytes where/);
  assert.ok(faults.length < 8192, `${faults.length} characters of faults`);
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
