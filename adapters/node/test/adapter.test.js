// The adapter in process: framing, handshake, answers and failures of every
// shape a host returns (plain, Promise, Effect, Exit; Effect 4 through the
// real install in ./fixture, Effect 3's Cause tree by its shape), `cwd`,
// shutdown; and, as a child process, a clean stdout.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { FAULT_MESSAGE_BYTES, FAULT_STACK_BYTES, RpcError, StdError, excerpt, methods, serve } from "../lawsuite-peer.js";
import { Data, Effect } from "./fixture/effect.js";

class TaggedStdError extends Data.TaggedError("@smthrs/std/StdError") {}

const GLOB = { pattern: "*", root: ".", hidden: false, noIgnore: false, limit: 10 };
const OUT = { paths: [], total: 0, truncated: false };

/** Serve `options` on in-memory streams; send `lines`; the parsed answers. */
async function exchange(options, lines) {
  const input = new PassThrough();
  const output = new PassThrough();
  let text = "";
  output.on("data", (chunk) => { text += chunk; });
  const done = serve({ name: "t", ...options, input, output, exit: false });
  for (const line of lines) input.write(typeof line === "string" ? `${line}\n` : `${JSON.stringify(line)}\n`);
  input.end();
  await done;
  return text.split("\n").filter(Boolean).map((l) => JSON.parse(l));
}

const req = (id, method, params) => ({ jsonrpc: "2.0", id, method, params });
const init = req(1, "initialize", { protocol: { min: 1, max: 1 } });
const one = async (options, method, params) => (await exchange(options, [req(7, method, params)]))[0];

test("the handshake declares the host's methods and ground", async () => {
  const [hello] = await exchange({
    name: "mine", version: "2.0.0", language: "typescript", ground: "full",
    search: { grep: () => 0, glob: () => 0 }, flows: { read: () => 0, ls: () => 0 },
  }, [init]);
  assert.deepEqual(hello, {
    jsonrpc: "2.0", id: 1,
    result: {
      protocol: 1,
      peer: { name: "mine", version: "2.0.0", language: "typescript" },
      capabilities: { methods: ["grep", "glob", "flow/read", "flow/ls"], ground: "full" },
    },
  });
  const [only] = await exchange({ search: { glob: () => 0 } }, [init]);
  assert.deepEqual(only.result.capabilities, { methods: ["glob"], ground: "shared" });
  assert.equal(only.result.peer.version, "0.0.0");
});

test("no common version is -32001 with the peer's range", async () => {
  const [answer] = await exchange({ search: { glob: () => OUT } }, [req(3, "initialize", { protocol: { min: 2, max: 4 } })]);
  assert.deepEqual(answer.error, {
    code: -32001,
    message: "no common protocol version: the harness speaks 2..=4, this peer speaks 1",
    data: { min: 1, max: 1 },
  });
  assert.equal(answer.id, 3);
});

test("framing: blank lines skipped, bad lines answered, serving goes on", async () => {
  const answers = await exchange({ search: { glob: () => OUT } }, [
    "", "not json", '{"jsonrpc":"2.0","method":"glob"}', req(4, "flow/ls", { path: "." }),
    req(5, "glob", GLOB), req(6, "shutdown"), req(7, "glob", GLOB),
  ]);
  assert.deepEqual(answers.map((a) => [a.id, a.error?.code ?? "ok"]), [
    [null, -32700], [null, -32600], [4, -32601], [5, "ok"], [6, "ok"],
  ]);
  assert.deepEqual(answers[3].result, OUT);
  assert.equal(answers[4].result, null);
  assert.match(answers[2].error.message, /this peer answers initialize, glob and shutdown/);
});

test("a plain value, a Promise, an Effect, an Exit: each is the result", async () => {
  const cases = {
    plain: { search: { glob: () => OUT } },
    promise: { search: { glob: async () => OUT } },
    "runPromiseExit": { search: { glob: () => Effect.succeed(OUT) }, runEffect: Effect.runPromiseExit },
    "runPromise": { search: { glob: () => Effect.succeed(OUT) }, runEffect: Effect.runPromise },
    "runSyncExit": { search: { glob: () => Effect.sync(() => OUT) }, runEffect: Effect.runSyncExit },
    "an Exit": { search: { glob: () => Effect.runSyncExit(Effect.succeed(OUT)) } },
    "a Promise of an Effect": { search: { glob: async () => Effect.succeed(OUT) }, runEffect: Effect.runPromiseExit },
  };
  for (const [name, options] of Object.entries(cases)) {
    assert.deepEqual(await one(options, "glob", GLOB), { jsonrpc: "2.0", id: 7, result: OUT }, name);
  }
});

test("the method is called on its object, with the params as sent", async () => {
  const search = {
    seen: undefined,
    glob(input) { this.seen = input; return OUT; },
  };
  await one({ search }, "glob", GLOB);
  assert.deepEqual(search.seen, GLOB);
});

test("a StdError-shaped failure is the contract failure, whatever its shape", async () => {
  const notFound = { code: "not_found", message: "Path not found: nope", path: "nope" };
  const expected = { code: -32000, message: "Path not found: nope", data: notFound };
  const cases = {
    "Effect.fail with a tagged error": { search: { glob: () => Effect.fail(new TaggedStdError(notFound)) }, runEffect: Effect.runPromiseExit },
    "yield* inside Effect.gen": { search: { glob: () => Effect.gen(function* () { return yield* new TaggedStdError(notFound); }) }, runEffect: Effect.runPromiseExit },
    "through runPromise": { search: { glob: () => Effect.fail(new TaggedStdError(notFound)) }, runEffect: Effect.runPromise },
    "the adapter's StdError, thrown": { search: { glob: () => { throw new StdError("not_found", "Path not found: nope", "nope"); } } },
    "a rejected plain object": { search: { glob: async () => { throw { ...notFound, extra: 1 }; } } },
    "an Effect 3 Cause tree": {
      search: {
        glob: () => ({
          [Symbol.for("effect/Effect")]: {}, _tag: "Failure",
          cause: { _tag: "Sequential", left: { _tag: "Empty" }, right: { _tag: "Fail", error: new TaggedStdError(notFound) } },
        }),
      },
    },
  };
  for (const [name, options] of Object.entries(cases)) {
    assert.deepEqual((await one(options, "glob", GLOB)).error, expected, name);
  }
  const noPath = await one({ search: { grep: () => { throw new StdError("invalid_pattern", "Unsupported ripgrep pattern \"(\": x"); } } }, "grep", {});
  assert.deepEqual(noPath.error.data, { code: "invalid_pattern", message: "Unsupported ripgrep pattern \"(\": x" });
});

test("defects, throws and other failures are faults with message and stack", async () => {
  const run = { runEffect: Effect.runPromiseExit };
  const cases = [
    [{ glob: () => { throw new TypeError("boom"); } }, /^glob threw: TypeError: boom \(at .*adapter\.test\.js/],
    [{ glob: async () => { throw new TypeError("boom"); } }, /^glob threw: TypeError: boom/],
    [{ glob: () => Effect.sync(() => { throw new RangeError("deep"); }) }, /^glob died \(an Effect defect\): RangeError: deep/],
    [{ glob: () => Effect.die("a string defect") }, /^glob died \(an Effect defect\): string: a string defect$/],
    [{ glob: () => Effect.fail(new Error("not a StdError")) }, /^glob failed with an error that is not a StdError: Error: not a StdError/],
    [{ glob: () => Effect.fail(new TaggedStdError({ code: "ENOENT", message: "m" })) }, /is not one of search-contract §17/],
    [{ glob: () => Effect.interrupt }, /^glob was interrupted/],
    [{ glob: () => undefined }, /answered undefined/],
  ];
  for (const [search, pattern] of cases) {
    const { error } = await one({ search, ...run }, "glob", GLOB);
    assert.equal(error.code, -32603, String(pattern));
    assert.match(error.message, pattern);
    assert.equal(typeof error.data.stack, "string");
  }
  const died = await one({ search: cases[2][0], ...run }, "glob", GLOB);
  assert.match(died.error.data.stack, /RangeError: deep\n\s+at /);
  // (Effect.succeed is an Exit in Effect 4, answered without running; sync is not.)
  const { error } = await one({ search: { glob: () => Effect.sync(() => OUT) } }, "glob", GLOB);
  assert.match(error.message, /returned an Effect, but serve\(\) was given no runEffect/);
});

const jsonBytes = (text) => Buffer.byteLength(JSON.stringify(text), "utf8");

test("a fault quoting a megabyte holds it once, cut to the bound, with the count left out", async () => {
  const input = new PassThrough();
  const output = new PassThrough();
  let line = "";
  output.on("data", (chunk) => { line += chunk; });
  // V8 quotes a RegExp's whole source in its error: 1 MiB here.
  const done = serve({ name: "t", search: { glob: () => new RegExp(`(${"a".repeat(1 << 20)}`) }, input, output, exit: false });
  input.end(`${JSON.stringify(req(7, "glob", GLOB))}\n`);
  await done;
  const { error } = JSON.parse(line);
  assert.equal(error.code, -32603);
  assert.ok(jsonBytes(error.message) <= FAULT_MESSAGE_BYTES, `${jsonBytes(error.message)} bytes`);
  assert.match(error.message, /^glob threw: SyntaxError: Invalid regular expression: \/\(a+… \[\d+ characters left out\] …a+\/: Unterminated group \(at /);
  const left = Number(/\[(\d+) characters left out\]/.exec(error.message)[1]);
  assert.ok(left > (1 << 20) - FAULT_MESSAGE_BYTES, String(left));
  assert.ok(jsonBytes(error.data.stack) <= FAULT_STACK_BYTES);
  assert.ok(error.data.stack.startsWith(`SyntaxError: ${error.data.message}\n`), error.data.stack.slice(0, 200));
  // The whole line was 3 MB when the message came three times.
  assert.ok(line.length < 32 * 1024, `${line.length} bytes`);
});

test("the README quotes the bounds the adapter has", () => {
  const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8").replace(/\s+/g, " ");
  const figure = (n) => n.toLocaleString("en-US");
  assert.ok(readme.includes(`\`FAULT_MESSAGE_BYTES\` (${figure(FAULT_MESSAGE_BYTES)})`));
  assert.ok(readme.includes(`\`FAULT_STACK_BYTES\` (${figure(FAULT_STACK_BYTES)})`));
});

test("the bound on both sides: a message that fits is whole, one unit more is cut", () => {
  const fits = "a".repeat(FAULT_MESSAGE_BYTES - 2); // two bytes of quotes
  assert.equal(jsonBytes(fits), FAULT_MESSAGE_BYTES);
  assert.equal(excerpt(fits, FAULT_MESSAGE_BYTES), fits);
  const cut = excerpt(`${fits}b`, FAULT_MESSAGE_BYTES);
  assert.ok(jsonBytes(cut) <= FAULT_MESSAGE_BYTES);
  assert.match(cut, /^a+… \[\d+ characters left out\] …a+b$/);
  // Bytes, not characters: an escaped control character is six.
  const controls = excerpt("\u0001".repeat(10000), 600);
  assert.ok(jsonBytes(controls) <= 600 && jsonBytes(controls) > 500, String(jsonBytes(controls)));
  // A surrogate pair is never split.
  assert.doesNotMatch(excerpt("😀".repeat(1000), 100), /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
  // Through serve(): the host's message is cut to what the adapter's words leave.
  const at = async (message) => (await one({ search: { glob: () => { const e = new Error(message); e.stack = `Error: ${message}\n    at host (h.js:1:1)`; throw e; } } }, "glob", GLOB)).error.message;
  const words = jsonBytes("glob threw: Error:  (at host (h.js:1:1))");
  return Promise.all([at("m".repeat(FAULT_MESSAGE_BYTES - words)), at("m".repeat(FAULT_MESSAGE_BYTES - words + 1))]).then(([whole, over]) => {
    assert.equal(jsonBytes(whole), FAULT_MESSAGE_BYTES);
    assert.doesNotMatch(whole, /left out/);
    assert.match(over, /characters left out/);
    assert.ok(jsonBytes(over) <= FAULT_MESSAGE_BYTES);
  });
});

test("a host's file-system or schema failure is a fault that says what the contract answers", async () => {
  const errno = (code, syscall = "stat") => Object.assign(new Error(`${code}: x, ${syscall} 'p'`), { code, syscall, errno: -1 });
  const cases = [
    ["glob", { search: { glob: () => { throw errno("ENOTDIR"); } } },
      /; search-contract §7\.1 answers a host reason other than NotFound and PermissionDenied \(ENOTDIR\) with command_failed «Cannot search \{root\}: \{host error message\}» when the root fails/],
    ["grep", { search: { grep: () => { throw errno("EACCES"); } } },
      /answers the host reason PermissionDenied \(EACCES\) with permission_denied «Cannot search \{root\}: \{host error message\}»/],
    ["flow/ls", { flows: { ls: () => { throw errno("ENOENT", "scandir"); } } },
      /read-ls-flows' read-side mapping answers the host reason NotFound \(ENOENT\) with not_found «Directory not found: \{path\}»/],
    ["flow/read", { flows: { read: () => Effect.fail({ _tag: "PlatformError", message: "BadResource: FileSystem.stat (p)", reason: { _tag: "BadResource" }, cause: { code: "ELOOP" } }) }, runEffect: Effect.runPromiseExit },
      /a host reason other than NotFound and PermissionDenied \(BadResource, ELOOP\) with command_failed «Could not read \{path\}: \{host error message\}»/],
    ["flow/read", { flows: { read: () => Effect.fail({ _tag: "SchemaError", message: "Expected a value greater than or equal to 1" }) }, runEffect: Effect.runPromiseExit },
      /; the contract answers input its schema refuses with invalid_input: map the schema error to a StdError with code invalid_input/],
  ];
  for (const [method, options, pattern] of cases) {
    const { error } = await one(options, method, { path: "p" });
    assert.equal(error.code, -32603, method);
    assert.match(error.message, pattern);
  }
  // Anything else: no such sentence.
  const { error } = await one({ search: { glob: () => { throw new TypeError("boom"); } } }, "glob", GLOB);
  assert.doesNotMatch(error.message, /answers/);
});

test("an explicit RpcError is answered as it is", async () => {
  const { error } = await one({ flows: { read: () => { throw new RpcError(-32602, "offset must be an integer"); } } }, "flow/read", { path: "a" });
  assert.deepEqual(error, { code: -32602, message: "offset must be an integer" });
});

test("read and ls run in the call's cwd, which is not passed on", async () => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "lawsuite-adapter-")));
  const before = process.cwd();
  const seen = [];
  const flows = {
    read: (input) => { seen.push([input, process.cwd()]); return Effect.succeed({ ok: 1 }); },
    ls: async (input) => { await null; seen.push([input, process.cwd()]); return { ok: 2 }; },
    bash: (input) => { seen.push([input, process.cwd()]); return { ok: 3 }; },
  };
  const answers = await exchange({ flows, runEffect: Effect.runPromiseExit }, [
    req(1, "flow/read", { path: "a.txt", offset: 2, cwd: dir }),
    req(2, "flow/ls", { path: "sub", cwd: dir }),
    req(3, "flow/read", { path: "/abs" }),
    req(4, "flow/bash", { command: "pwd", cwd: dir }),
  ]);
  assert.deepEqual(answers.map((a) => a.result), [{ ok: 1 }, { ok: 2 }, { ok: 1 }, { ok: 3 }]);
  assert.deepEqual(seen, [
    [{ path: "a.txt", offset: 2 }, dir],
    [{ path: "sub" }, dir],
    [{ path: "/abs" }, before],
    // bash's cwd is the spec's own field: passed on, the process not moved.
    [{ command: "pwd", cwd: dir }, before],
  ]);
  assert.equal(process.cwd(), before);
});

test("serve() refuses what it cannot serve", () => {
  assert.throws(() => methods({ name: "x" }), /needs search.grep, search.glob or a flow handler/);
  assert.throws(() => methods({ name: "x", flows: { raed: () => 0 } }), /flows.raed: the protocol has no such flow/);
  assert.throws(() => methods({ name: "x", search: { grep: "no" } }), /search.grep is not a function/);
  assert.doesNotThrow(() => methods({ name: "x", search: { glob: () => 0, helper: () => 0 } }));
});

test("as a process: only protocol lines on stdout, logs on stderr, exit 0", () => {
  const peer = fileURLToPath(new URL("./fixture/chatty-peer.js", import.meta.url));
  const input = [init, req(2, "glob", GLOB), req(3, "shutdown")].map((r) => JSON.stringify(r)).join("\n") + "\n";
  const run = spawnSync(process.execPath, [peer], { input, encoding: "utf8", timeout: 20000 });
  assert.equal(run.status, 0, run.stderr);
  const lines = run.stdout.split("\n").filter(Boolean);
  // The banner printed before serve() is the host's: everything after it is protocol.
  assert.equal(lines[0], "a banner before serving goes to stdout: the host's own business");
  assert.deepEqual(lines.slice(1).map((l) => JSON.parse(l).id), [1, 2, 3]);
  assert.match(run.stderr, /console.log while serving \*\nconsole.info while serving\nprocess.stdout.write while serving\n/);
});

test("as a process: the end of stdin ends it", () => {
  const peer = fileURLToPath(new URL("./fixture/chatty-peer.js", import.meta.url));
  const run = spawnSync(process.execPath, [peer], { input: `${JSON.stringify(init)}\n`, encoding: "utf8", timeout: 20000 });
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout.split("\n").filter(Boolean).length, 2);
});

test("the types: a typed Effect host compiles against lawsuite-peer.d.ts", () => {
  const fixture = fileURLToPath(new URL("./fixture/", import.meta.url));
  const tsc = join(fixture, "node_modules/typescript/bin/tsc");
  const run = spawnSync(process.execPath, [tsc, "-p", fixture], { encoding: "utf8", timeout: 120000 });
  assert.equal(run.status, 0, run.stdout + run.stderr);
});
