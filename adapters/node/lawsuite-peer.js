// A lawsuite peer from a host's own `Search` (peers/PROTOCOL.md, version 1).
//
// ES module, no dependencies, Node 18+. The host passes its objects and, when
// its methods return Effects, its own way to run one: this module never
// imports `effect` or `@smthrs/std`.
//
//   import { Effect } from "effect";
//   import { serve } from "./lawsuite-peer.js";
//   serve({ name: "my-search", version: "1.0.0", search: MySearch,
//           runEffect: (effect) => Effect.runPromiseExit(Effect.provide(effect, MyLayer)) });
//
// What it does for the host: newline-delimited JSON-RPC framing on stdin and
// stdout, the `initialize` handshake (version range, declared methods,
// ground), one call at a time, the `cwd` of `flow/read` and `flow/ls` (the
// call runs with it as the working directory), the mapping of answers and
// failures (below), `shutdown`, and a clean stdout: while serving, anything
// else written to process.stdout (console.log included) goes to stderr.
//
// A method may return a plain value, a Promise, an Effect (run with
// `runEffect`) or an Exit. The answer is:
//   - a success value: the result, as JSON;
//   - a failure whose error is StdError-shaped (a `code` of search-contract
//     §17 and a string `message`, optionally `path`; `_tag`
//     "@smthrs/std/StdError" or any other object, thrown or failed): the
//     contract failure, JSON-RPC error -32000 with `data` {code, message, path?};
//   - anything else (a defect, a thrown exception, an interruption, a failure
//     that is not a StdError, an unknown StdError code): a fault of the peer,
//     JSON-RPC error -32603 with the message, `data` {name, message, stack},
//     and the stack (or the rendered Cause) on stderr, which lawsuite shows
//     beside the failing trial. A fault is bounded: its message is at most
//     FAULT_MESSAGE_BYTES of JSON and its stack FAULT_STACK_BYTES, each cut
//     in the middle (head and tail kept, the count of what was left out
//     said), so a host error quoting a megabyte (a V8 RegExp error quotes
//     its whole source) is reported, not refused for its size. When the
//     error is a host's file-system failure (a Node errno error such as
//     ENOTDIR, an Effect PlatformError) or a schema's refusal, the message
//     says which contract failure the contract gives for it, in the
//     contract's words: the call is still a fault, since only the host
//     knows the path and the words the contract's message needs.

import process from "node:process";
import { createInterface } from "node:readline";

/** The protocol versions this adapter speaks. */
export const PROTOCOL = Object.freeze({ min: 1, max: 1 });

/** The closed list of StdError codes (search-contract §17). */
export const CODES = Object.freeze([
  "stale_read", "not_found", "not_a_directory", "not_a_file", "is_directory",
  "binary_file", "offset_out_of_range", "invalid_pattern", "invalid_input",
  "no_match", "not_modified", "permission_denied", "outside_declared_reads",
  "outside_declared_writes", "command_failed", "request_failed", "timeout",
  "rate_limited", "provider_unavailable", "unsupported",
  "unsupported_content_type", "response_too_large", "outside_container",
]);
const CODE_SET = new Set(CODES);

/** The tag of `@smthrs/std`'s StdError. */
export const STD_ERROR_TAG = "@smthrs/std/StdError";

/**
 * The most bytes of JSON (UTF-8, quotes included) a fault's message takes.
 * lawsuite's answer budget grants every call at least 4,096 bytes beyond
 * its answer's parts (docs/bounds.md, "answer budget"), and the fault it
 * reports holds this message once, inside its own words (about 130 bytes
 * and the peer's name): 4,096 − 512. A longer message made the fault a
 * budget overrun that hid the host's error.
 */
export const FAULT_MESSAGE_BYTES = 3584;

/**
 * The most bytes of JSON a fault's stack takes (`data.stack`, and what goes
 * to stderr): what lawsuite keeps of one value of a failing case
 * (`CASE_VALUE_BYTES`, 16 KiB).
 */
export const FAULT_STACK_BYTES = 16384;

const CONTRACT_FAILURE = -32000;
const NO_COMMON_VERSION = -32001;
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const METHOD_NOT_FOUND = -32601;
const INVALID_PARAMS = -32602;
const INTERNAL_ERROR = -32603;

/** Protocol method names of the keys of `search` and `flows`. */
const SEAM = { grep: "grep", glob: "glob" };
const FLOWS = {
  grep: "flow/grep", glob: "flow/glob", read: "flow/read", ls: "flow/ls", bash: "flow/bash",
};

/**
 * A contract failure for hosts without their own StdError class: throw it
 * (or fail an Effect with it).
 */
export class StdError extends Error {
  /**
   * @param {string} code one of {@link CODES}
   * @param {string} message the contract's message
   * @param {string} [path] the path, for filesystem failures
   */
  constructor(code, message, path) {
    super(message);
    this._tag = STD_ERROR_TAG;
    this.code = code;
    if (path !== undefined) this.path = path;
  }
}

/** An explicit JSON-RPC error (e.g. -32602 for params of the wrong shape). */
export class RpcError extends Error {
  /**
   * @param {number} code
   * @param {string} message
   * @param {unknown} [data]
   */
  constructor(code, message, data) {
    super(message);
    this.rpcCode = code;
    this.data = data;
  }
}

/**
 * Whether `value` is a StdError (tagged, or any object with a §17 `code` and
 * a string `message`).
 * @param {unknown} value
 * @returns {boolean}
 */
export function isStdError(value) {
  return typeof value === "object" && value !== null
    && typeof value.code === "string" && CODE_SET.has(value.code)
    && typeof value.message === "string";
}

const isObject = (v) => (typeof v === "object" || typeof v === "function") && v !== null;
const isThenable = (v) => isObject(v) && typeof v.then === "function";
// Effect 4 marks its values with string keys, Effect 3 with registered symbols.
const isExit = (v) => isObject(v)
  && ("~effect/Exit" in v || Symbol.for("effect/Exit") in v || "~effect/Effect" in v
    || Symbol.for("effect/Effect") in v)
  && ((v._tag === "Success" && "value" in v) || (v._tag === "Failure" && "cause" in v));
const isEffect = (v) => isObject(v) && ("~effect/Effect" in v || Symbol.for("effect/Effect") in v);
const FIBER_FAILURE_CAUSE = Symbol.for("effect/Runtime/FiberFailure/Cause");

/** A failure of the call: what the response's `error` becomes. */
class Failed {
  constructor(error) { this.error = error; }
}

/**
 * The reasons of a Cause, flat: Effect 4 (`reasons`) and Effect 3 (a tree of
 * `Sequential`/`Parallel` nodes over `Fail`, `Die`, `Interrupt`).
 */
function reasons(cause) {
  if (!isObject(cause)) return [{ _tag: "Die", defect: cause }];
  if (Array.isArray(cause.reasons)) return cause.reasons;
  if (Array.isArray(cause.failures)) return cause.failures;
  switch (cause._tag) {
    case "Empty": return [];
    case "Sequential":
    case "Parallel": return [...reasons(cause.left), ...reasons(cause.right)];
    case "Fail": case "Die": case "Interrupt": return [cause];
    default: return [{ _tag: "Die", defect: cause }];
  }
}

/** The bytes of `text` as JSON (UTF-8, quotes included), as lawsuite counts it. */
const jsonBytes = (text) => Buffer.byteLength(JSON.stringify(text), "utf8");

const isHigh = (unit) => unit >= 0xd800 && unit <= 0xdbff;

/**
 * `text` whole when its JSON takes at most `most` bytes; else its head and
 * tail, as long as fit, around `… [N characters left out] …` (N counts
 * UTF-16 units, as JavaScript counts a string's length). A surrogate pair
 * is never split.
 * @param {string} text
 * @param {number} most
 * @returns {string}
 */
export function excerpt(text, most) {
  if (jsonBytes(text) <= most) return text;
  const cut = (keep) => {
    let head = Math.ceil(keep / 2);
    let tail = text.length - Math.floor(keep / 2);
    if (head > 0 && isHigh(text.charCodeAt(head - 1))) head -= 1;
    if (tail < text.length && tail > 0 && isHigh(text.charCodeAt(tail - 1))) tail += 1;
    return `${text.slice(0, head)}… [${tail - head} characters left out] …${text.slice(tail)}`;
  };
  // The most units kept whose excerpt fits: bisection, as a unit's bytes
  // range from 1 to 6 (an escaped control character).
  let lo = 0;
  let hi = text.length - 1;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (jsonBytes(cut(mid)) <= most) lo = mid; else hi = mid - 1;
  }
  return cut(lo);
}

function describe(value) {
  if (value instanceof Error) return value.stack || `${value.name}: ${value.message}`;
  if (typeof value === "string") return value;
  try { return JSON.stringify(value) ?? String(value); } catch { return String(value); }
}

/** A Cause → the answer: its first typed error if a StdError, else a fault. */
function fromCause(method, cause) {
  const all = reasons(cause);
  const first = all.find((r) => r && r._tag === "Fail");
  if (first && isStdError(first.error)) return new Failed(contractError(first.error));
  const rendered = all.length === 0 ? "an empty Cause" : all.map((r) => {
    if (r?._tag === "Fail") return `Fail (an error that is not a StdError): ${describe(r.error)}`;
    if (r?._tag === "Die") return `Die: ${describe(r.defect)}`;
    if (r?._tag === "Interrupt") return `Interrupt (fiber ${describe(r.fiberId)})`;
    return describe(r);
  }).join("\n");
  if (first) return new Failed(fault(method, first.error, rendered, "failed with an error that is not a StdError"));
  const died = all.find((r) => r?._tag === "Die");
  if (died) return new Failed(fault(method, died.defect, rendered, "died (an Effect defect)"));
  return new Failed(fault(method, new Error(rendered.split("\n")[0]), rendered, "was interrupted"));
}

function contractError(err) {
  const data = { code: err.code, message: err.message };
  if (typeof err.path === "string") data.path = err.path;
  return { code: CONTRACT_FAILURE, message: err.message, data };
}

/**
 * The reason a host's file-system failure carries, in the contract's terms
 * (search-contract §7.1 and read-ls-flows' read-side mapping name the
 * reasons NotFound and PermissionDenied; any other is "another reason"),
 * with what the host said: an Effect 4 `PlatformError` (its `reason._tag`,
 * as `@effect/platform-node` maps an errno: ENOTDIR, ELOOP and EISDIR are
 * BadResource), an Effect 3 `SystemError` (its `reason`), or a Node errno
 * error (`code` ENOENT is NotFound, EACCES PermissionDenied, as
 * `@effect/platform-node` reads them). `undefined` for anything else.
 */
function hostReason(err) {
  if (!isObject(err)) return undefined;
  const errno = (e) => (isObject(e) && typeof e.code === "string" && /^E[A-Z0-9]+$/.test(e.code) ? e.code : undefined);
  let said;
  if (err._tag === "PlatformError" && isObject(err.reason) && typeof err.reason._tag === "string") {
    said = err.reason._tag;
  } else if (err._tag === "SystemError" && typeof err.reason === "string") {
    said = err.reason;
  }
  const code = errno(err) ?? errno(err.cause) ?? errno(err.reason?.cause);
  if (said === undefined && (code === undefined || !(typeof err.syscall === "string" || typeof err.errno === "number"))) {
    return undefined;
  }
  const reason = said ?? (code === "ENOENT" ? "NotFound" : code === "EACCES" ? "PermissionDenied" : "other");
  const from = [said, code].filter(Boolean).join(", ");
  return { reason, from };
}

/**
 * What the contract answers for `err` on `method`, in its own words, or
 * `undefined` when `err` is neither a host file-system failure nor a schema
 * error. The adapter does not answer it for the host: the contract's
 * message needs the failing path and the host's own words, and a peer that
 * does not map its failures must fail the laws that pin them.
 */
function contractHint(method, err) {
  if (isObject(err) && (err._tag === "SchemaError" || err._tag === "ParseError")) {
    return "the contract answers input its schema refuses with invalid_input: map the schema error to a StdError with code invalid_input (adapters/node/README.md, \"Use: binding a @smthrs/std host\")";
  }
  const host = hostReason(err);
  if (host === undefined) return undefined;
  const search = { grep: 1, glob: 1, "flow/grep": 1, "flow/glob": 1 }[method] !== undefined;
  const flow = method === "flow/read" ? "read" : method === "flow/ls" ? "ls" : undefined;
  if (!search && flow === undefined) return undefined;
  const words = host.reason === "NotFound" || host.reason === "PermissionDenied"
    ? `the host reason ${host.reason} (${host.from})`
    : `a host reason other than NotFound and PermissionDenied (${host.from})`;
  let answer;
  if (search) {
    answer = host.reason === "NotFound" ? "not_found «Path not found: {root}»"
      : host.reason === "PermissionDenied" ? "permission_denied «Cannot search {root}: {host error message}»"
        : "command_failed «Cannot search {root}: {host error message}»";
    return `search-contract §7.1 answers ${words} with ${answer} when the root fails: fail with a StdError of that code`;
  }
  const notFound = flow === "read" ? "File not found: {path}" : "Directory not found: {path}";
  answer = host.reason === "NotFound" ? `not_found «${notFound}»`
    : host.reason === "PermissionDenied" ? "permission_denied «Permission denied: {path}»"
      : "command_failed «Could not read {path}: {host error message}»";
  return `read-ls-flows' read-side mapping answers ${words} with ${answer}: fail with a StdError of that code`;
}

/**
 * A fault: the JSON-RPC internal error, with the stack on stderr too. The
 * host's message appears once, cut to fit FAULT_MESSAGE_BYTES with the
 * adapter's words around it; `data.message` is that excerpt, and the stack
 * (whose first line repeats the message) starts with it instead.
 */
function fault(method, err, detail, what = "failed") {
  const name = excerpt(err instanceof Error ? String(err.name) : typeof err, 256);
  let whole = err instanceof Error ? String(err.message) : describe(err);
  if (isObject(err) && err._tag === STD_ERROR_TAG && !isStdError(err)) {
    whole = `a StdError whose code ${JSON.stringify(err.code)} is not one of search-contract §17: ${err.message}`;
  }
  // lawsuite shows the message with the fault: name where it was thrown.
  let ownStack = err instanceof Error && typeof err.stack === "string" ? err.stack : "";
  // The frames follow the message, which may hold lines like them (a
  // SchemaError's `  at ["limit"]`).
  const heading = `${err?.name}: ${err?.message}`;
  if (ownStack.startsWith(heading)) ownStack = ownStack.slice(heading.length);
  const frame = /^\s+at (.+)$/m.exec(ownStack);
  const at = frame ? ` (at ${excerpt(frame[1], 512)})` : "";
  const hint = contractHint(method, err);
  const said = hint === undefined ? "" : `; ${hint}`;
  const before = `${method} ${what}: ${name}: `;
  const after = `${at}${said}`;
  // The room the host's words have: the bound less the adapter's words.
  const room = Math.max(FAULT_MESSAGE_BYTES - jsonBytes(before + after) + 2, 64);
  const message = excerpt(whole, room);
  let stack = detail ?? describe(err);
  if (message !== whole) stack = stack.split(whole).join(message);
  stack = excerpt(stack, FAULT_STACK_BYTES);
  process.stderr.write(`lawsuite-peer: ${method} failed (a fault, not an answer):\n${stack}\n`);
  return {
    code: INTERNAL_ERROR,
    message: excerpt(`${before}${message}${after}`, FAULT_MESSAGE_BYTES),
    data: { name, message, stack },
  };
}

/** A thrown or rejected value → the answer. */
function fromThrown(method, err) {
  if (err instanceof RpcError) {
    const error = { code: err.rpcCode, message: err.message };
    if (err.data !== undefined) error.data = err.data;
    return new Failed(error);
  }
  if (isStdError(err)) return new Failed(contractError(err));
  // Effect 3's runPromise rejects with a FiberFailure holding the Cause.
  if (isObject(err) && FIBER_FAILURE_CAUSE in err) return fromCause(method, err[FIBER_FAILURE_CAUSE]);
  return new Failed(fault(method, err, undefined, "threw"));
}

/** Settle whatever a method returned into a value or a {@link Failed}. */
async function settle(method, value, runEffect, depth = 0) {
  if (depth > 8) return new Failed(fault(method, new Error("the answer kept resolving to Effects or Promises")));
  if (isThenable(value)) {
    try { value = await value; } catch (err) { return fromThrown(method, err); }
    return settle(method, value, runEffect, depth + 1);
  }
  if (isExit(value)) {
    return value._tag === "Success" ? settle(method, value.value, runEffect, depth + 1)
      : fromCause(method, value.cause);
  }
  if (isEffect(value)) {
    if (typeof runEffect !== "function") {
      return new Failed(fault(method, new TypeError(
        "the method returned an Effect, but serve() was given no runEffect (e.g. runEffect: Effect.runPromiseExit)")));
    }
    let ran;
    try { ran = runEffect(value); } catch (err) { return fromThrown(method, err); }
    return settle(method, ran, runEffect, depth + 1);
  }
  if (value === undefined) {
    return new Failed(fault(method, new TypeError("the method answered undefined")));
  }
  return value;
}

/**
 * @typedef {object} ServeOptions
 * @property {string} name the peer's name (lawsuite reports it; trials use the registry's)
 * @property {string} [version] default "0.0.0"
 * @property {string} [language] default "javascript"
 * @property {string} [homepage]
 * @property {{grep?: Function, glob?: Function}} [search] the seam: normalised input in, output out
 * @property {{grep?: Function, glob?: Function, read?: Function, ls?: Function, bash?: Function}} [flows]
 *   whole flows, declared as flow/grep, flow/glob, flow/read, flow/ls, flow/bash
 * @property {(effect: unknown) => unknown} [runEffect] runs an Effect a method returned; may return
 *   an Exit, a Promise of one (Effect.runPromiseExit), or a Promise of the value (Effect.runPromise)
 * @property {"shared" | "full"} [ground] the plans claimed; default "shared"
 * @property {NodeJS.ReadableStream} [input] default process.stdin
 * @property {NodeJS.WritableStream} [output] default process.stdout
 * @property {boolean} [exit] exit the process when done; default: when serving process.stdout
 */

/**
 * The methods `options` declares, name → [handler, holder].
 * @param {ServeOptions} options
 */
export function methods(options) {
  const out = new Map();
  for (const [table, names, label] of [[options.search, SEAM, "search"], [options.flows, FLOWS, "flows"]]) {
    if (table === undefined || table === null) continue;
    for (const key of Object.keys(names)) {
      const fn = table[key];
      if (fn === undefined) continue;
      if (typeof fn !== "function") throw new TypeError(`${label}.${key} is not a function`);
      out.set(names[key], [fn, table]);
    }
    // `flows` is built for this call: a key it does not know is a typo. (The
    // host's `search` object may carry anything else.)
    if (table === options.flows) {
      for (const key of Object.keys(table)) {
        if (!(key in names)) {
          throw new TypeError(`flows.${key}: the protocol has no such flow (flows takes ${Object.keys(names).join(", ")})`);
        }
      }
    }
  }
  if (out.size === 0) throw new TypeError("serve() needs search.grep, search.glob or a flow handler");
  return out;
}

/**
 * Serve `options` over the peer protocol until `shutdown` or the end of the
 * input. Resolves when done (and, serving process.stdout, exits the process
 * with status 0 so the host's open handles do not keep it alive).
 * @param {ServeOptions} options
 * @returns {Promise<void>}
 */
export async function serve(options) {
  if (!options || typeof options.name !== "string" || options.name === "") {
    throw new TypeError("serve() needs a name");
  }
  const table = methods(options);
  const ground = options.ground ?? "shared";
  if (ground !== "shared" && ground !== "full") throw new TypeError(`ground must be "shared" or "full", not ${JSON.stringify(ground)}`);
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const exit = options.exit ?? output === process.stdout;

  // Only protocol lines on stdout: everything else written there goes to stderr.
  let write = (line) => new Promise((resolve, reject) => output.write(line, (e) => (e ? reject(e) : resolve())));
  let restore = () => {};
  if (output === process.stdout) {
    const original = process.stdout.write;
    const own = original.bind(process.stdout);
    process.stdout.write = (chunk, encoding, cb) => process.stderr.write(chunk, encoding, cb);
    write = (line) => new Promise((resolve, reject) => own(line, (e) => (e ? reject(e) : resolve())));
    restore = () => { process.stdout.write = original; };
  }

  const declared = [...table.keys()];
  const respond = (id, body) => write(JSON.stringify({ jsonrpc: "2.0", id, ...body }) + "\n");

  const lines = createInterface({ input, crlfDelay: Infinity, terminal: false });
  try {
    for await (const line of lines) {
      if (line.trim() === "") continue;
      let request;
      try { request = JSON.parse(line); } catch (e) {
        await respond(null, { error: { code: PARSE_ERROR, message: `the line is not JSON: ${e.message}` } });
        continue;
      }
      const id = isObject(request) && Number.isInteger(request.id) && request.id >= 0 ? request.id : null;
      if (id === null || request.jsonrpc !== "2.0" || typeof request.method !== "string") {
        await respond(id, { error: { code: INVALID_REQUEST, message: 'a request needs "jsonrpc":"2.0", an integer "id" and a string "method"' } });
        continue;
      }
      const { method, params } = request;
      if (method === "shutdown") {
        await respond(id, { result: null });
        break;
      }
      if (method === "initialize") {
        await respond(id, initialize(options, params, declared, ground));
        continue;
      }
      const entry = table.get(method);
      if (!entry) {
        await respond(id, { error: { code: METHOD_NOT_FOUND, message: `unknown method ${JSON.stringify(method)}; this peer answers initialize, ${declared.join(", ")} and shutdown` } });
        continue;
      }
      await respond(id, await call(method, entry, params, options.runEffect));
    }
  } finally {
    lines.close();
    restore();
  }
  if (exit) process.exit(0);
}

function initialize(options, params, declared, ground) {
  const theirs = isObject(params) ? params.protocol : undefined;
  if (!isObject(theirs) || !Number.isInteger(theirs.min) || !Number.isInteger(theirs.max)) {
    return { error: { code: INVALID_PARAMS, message: "the params of initialize are not valid: protocol must be {min, max}" } };
  }
  const lo = Math.max(theirs.min, PROTOCOL.min);
  const hi = Math.min(theirs.max, PROTOCOL.max);
  if (lo > hi) {
    const range = (r) => (r.min === r.max ? `${r.min}` : `${r.min}..=${r.max}`);
    return { error: { code: NO_COMMON_VERSION, message: `no common protocol version: the harness speaks ${range(theirs)}, this peer speaks ${range(PROTOCOL)}`, data: { ...PROTOCOL } } };
  }
  const peer = { name: options.name, version: options.version ?? "0.0.0", language: options.language ?? "javascript" };
  if (options.homepage) peer.homepage = options.homepage;
  return { result: { protocol: hi, peer, capabilities: { methods: declared, ground } } };
}

/** One call: the handler run (in `cwd` for read and ls), its answer settled. */
async function call(method, [fn, holder], params, runEffect) {
  if (!isObject(params)) {
    return { error: { code: INVALID_PARAMS, message: `the params of ${method} are not valid: an object is needed` } };
  }
  let args = params;
  let cwd;
  if ((method === "flow/read" || method === "flow/ls") && "cwd" in params) {
    // `cwd` is lawsuite's, not the spec's: the call runs there, so a relative
    // path resolves (and is reported, and hinted about) as the spec says.
    ({ cwd, ...args } = params);
  }
  const before = cwd === undefined ? undefined : process.cwd();
  let answer;
  try {
    if (cwd !== undefined) process.chdir(cwd);
    answer = await settle(method, fn.call(holder, args), runEffect);
  } catch (err) {
    answer = fromThrown(method, err);
  } finally {
    if (before !== undefined) process.chdir(before);
  }
  return answer instanceof Failed ? { error: answer.error } : { result: answer };
}
