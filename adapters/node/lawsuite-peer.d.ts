// Types of lawsuite-peer.js: a lawsuite peer (peers/PROTOCOL.md) from a
// host's `Search`. No dependency on `effect`: an Effect is whatever the
// host's `runEffect` accepts.

/** The closed list of StdError codes (search-contract §17). */
export type StdErrorCode =
  | "stale_read" | "not_found" | "not_a_directory" | "not_a_file" | "is_directory"
  | "binary_file" | "offset_out_of_range" | "invalid_pattern" | "invalid_input"
  | "no_match" | "not_modified" | "permission_denied" | "outside_declared_reads"
  | "outside_declared_writes" | "command_failed" | "request_failed" | "timeout"
  | "rate_limited" | "provider_unavailable" | "unsupported"
  | "unsupported_content_type" | "response_too_large" | "outside_container";

export declare const CODES: readonly StdErrorCode[];
export declare const PROTOCOL: { readonly min: 1; readonly max: 1 };
export declare const STD_ERROR_TAG: "@smthrs/std/StdError";
/** The most bytes of JSON a fault's message takes (4,096 − 512: it fits lawsuite's smallest answer budget). */
export declare const FAULT_MESSAGE_BYTES: 3584;
/** The most bytes of JSON a fault's stack takes (lawsuite's CASE_VALUE_BYTES). */
export declare const FAULT_STACK_BYTES: 16384;

/**
 * `text` whole when its JSON takes at most `most` bytes; else its head and
 * tail around `… [N characters left out] …`.
 */
export declare function excerpt(text: string, most: number): string;

/** Anything with a §17 code and a message (`@smthrs/std`'s StdError is one). */
export interface StdErrorShape {
  readonly code: StdErrorCode;
  readonly message: string;
  readonly path?: string;
}

/** A contract failure for hosts without their own StdError class. */
export declare class StdError extends Error implements StdErrorShape {
  constructor(code: StdErrorCode, message: string, path?: string);
  readonly _tag: "@smthrs/std/StdError";
  readonly code: StdErrorCode;
  readonly path?: string;
}

/** An explicit JSON-RPC error (e.g. -32602 for params of the wrong shape). */
export declare class RpcError extends Error {
  constructor(code: number, message: string, data?: unknown);
  readonly rpcCode: number;
  readonly data?: unknown;
}

export declare function isStdError(value: unknown): value is StdErrorShape;

/**
 * What a method may return: the value, a Promise of it, an Effect (run with
 * `runEffect`), or an Exit. A StdError-shaped failure is the contract's
 * answer; any other failure, a defect or a throw is a fault of the peer.
 */
export type Answer<A> = A | PromiseLike<A> | EffectLike;
/** An `effect` Effect or Exit (recognised by its type marker, not by type). */
export type EffectLike = { readonly [key: string]: unknown } | object;

type Method<I, O> = (input: I) => Answer<O>;

/** The seam, as `Search.make({ grep, glob })` holds it. */
export interface SearchLike<GrepIn = any, GrepOut = any, GlobIn = any, GlobOut = any> {
  grep?: Method<GrepIn, GrepOut>;
  glob?: Method<GlobIn, GlobOut>;
}

/**
 * Whole flows (validation, defaults and retry included), each declared as
 * `flow/<key>`. Their params are the raw JSON a caller sends, as lawsuite
 * sends it, and the types say what each flow may take
 * (adapters/node/README.md, "Use: binding a @smthrs/std host"):
 *
 * - `grep`, `glob`: the raw JSON handed to a `run` that makes the flow
 *   layer's own checks (search-contract §3, §5: `Grep.run`, `Glob.run`),
 *   undecoded: a schema would refuse first what those checks answer
 *   (`maxCount: 0`, an empty glob), with the wrong code or message. So a
 *   typed `run` binds as it is (`any`).
 * - `read`, `ls`: `unknown`, to be decoded (`Read.Input`, `Ls.Input`) with
 *   a schema error mapped to the contract's `invalid_input`; `Read.run`
 *   trusts its input and makes no check of its own, so binding it as it is
 *   does not compile.
 *
 * A relative `path` of read and ls resolves against process.cwd(), which is
 * the call's `cwd`.
 */
export interface Flows {
  grep?: Method<any, any>;
  glob?: Method<any, any>;
  read?: Method<unknown, any>;
  ls?: Method<unknown, any>;
  bash?: Method<unknown, any>;
}

export interface ServeOptions {
  /** The peer's own name, reported by lawsuite. */
  name: string;
  /** Default "0.0.0". */
  version?: string;
  /** Default "javascript". */
  language?: string;
  homepage?: string;
  search?: SearchLike;
  flows?: Flows;
  /**
   * Runs an Effect a method returned: e.g. `Effect.runPromiseExit`, or
   * `(e) => Effect.runPromiseExit(Effect.provide(e, layer))`. It may answer an
   * Exit, a Promise of one, or a Promise of the value (`Effect.runPromise`).
   */
  runEffect?: (effect: any) => unknown;
  /** The plans claimed (PROTOCOL.md); default "shared". */
  ground?: "shared" | "full";
  /** Default process.stdin. */
  input?: NodeJS.ReadableStream;
  /** Default process.stdout (then anything else written to it goes to stderr). */
  output?: NodeJS.WritableStream;
  /** Exit the process when done; default: when serving process.stdout. */
  exit?: boolean;
}

/** The methods `options` declares, protocol name → [handler, its object]. */
export declare function methods(options: ServeOptions): Map<string, [Function, object]>;

/** Serve until `shutdown` or the end of the input. */
export declare function serve(options: ServeOptions): Promise<void>;
