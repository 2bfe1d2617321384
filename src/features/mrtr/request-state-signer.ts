// Signing state: the `requestState` a server hands out with `input_required` and verifies on the retry.
// The signer is made at mount and reached by requests through their context (request-state.ts).
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { invalidParams, McpUsageError } from "../../protocol/errors.ts";
import type { JsonObject } from "../../protocol/types.ts";

/** What a state is bound to: the method and the params a retry must repeat. */
export interface SignedCall {
  readonly method: string;
  readonly params: JsonObject;
}

/** Longest token accepted, and so the longest issued. */
const MAX_TOKEN = 65_536;

export interface RequestStateOptions {
  /**
   * HMAC key. Give every instance behind a load balancer (and every Worker: isolates come and go)
   * the same secret so any of them can finish a round; by default a random key is drawn the first
   * time a request needs one, once per handler in each process or isolate.
   */
  secret?: string | Uint8Array;
  /** How long an issued state stays valid. Default 5 minutes. */
  ttlMs?: number;
}

/**
 * Signs and verifies `requestState`: `base64url(payload).base64url(hmac)`. The payload binds the
 * state to the method, a digest of the params the client must resend unchanged, and an expiry, so
 * it cannot be replayed against another call or after it expires.
 */
export function createRequestStateSigner(options: RequestStateOptions = {}, now: () => number = Date.now) {
  // Drawn on first use, never at import: Workers forbid random values outside a request.
  let key = options.secret;
  const ttlMs = options.ttlMs ?? 5 * 60_000;
  const mac = (data: string) => createHmac("sha256", (key ??= randomBytes(32))).update(data).digest();

  return {
    sign(ctx: SignedCall, state: unknown): string {
      const payload = Buffer.from(
        JSON.stringify({ s: state ?? null, m: ctx.method, d: paramsDigest(ctx.params), e: now() + ttlMs }),
      ).toString("base64url");
      const token = `${payload}.${mac(payload).toString("base64url")}`;
      if (token.length > MAX_TOKEN) {
        throw new McpUsageError("STATE_TOO_LARGE", `requestState would be ${token.length} characters; keep state under about 48 KiB`);
      }
      return token;
    },

    /** The state put in by `sign`, or `-32602` when it was tampered with, expired or belongs to another call. */
    verify(ctx: SignedCall, token: unknown): unknown {
      if (typeof token !== "string" || token.length > MAX_TOKEN) throw invalidParams("Invalid requestState");
      const dot = token.indexOf(".");
      if (dot <= 0) throw invalidParams("Invalid requestState");
      const payload = token.slice(0, dot);
      const given = Buffer.from(token.slice(dot + 1), "base64url");
      const expected = mac(payload);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalidParams("Invalid requestState");
      let decoded: { s: unknown; m: string; d: string; e: number };
      try {
        decoded = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
      } catch {
        throw invalidParams("Invalid requestState");
      }
      if (decoded.e < now()) throw invalidParams("Expired requestState");
      if (decoded.m !== ctx.method || decoded.d !== paramsDigest(ctx.params)) {
        throw invalidParams("requestState does not belong to this request");
      }
      return decoded.s;
    },
  };
}

export type RequestStateSigner = ReturnType<typeof createRequestStateSigner>;

// --- Internal ---

const UNBOUND = new Set(["_meta", "inputResponses", "requestState"]);

/** A digest of the params a retry must repeat exactly (everything but the MRTR fields and _meta). */
function paramsDigest(params: JsonObject): string {
  const bound: JsonObject = {};
  for (const key of Object.keys(params).sort()) if (!UNBOUND.has(key)) bound[key] = params[key];
  return createHmac("sha256", "params").update(stableStringify(bound)).digest("base64url").slice(0, 22);
}

const MAX_DEPTH = 64;

function stableStringify(value: unknown, depth = 0): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  // Params this deep are no tool's arguments; refusing them keeps the walk off the stack's edge.
  if (depth > MAX_DEPTH) throw invalidParams("Params are nested too deeply");
  if (Array.isArray(value)) return `[${value.map((v) => stableStringify(v, depth + 1)).join(",")}]`;
  const obj = value as JsonObject;
  return `{${Object.keys(obj)
    .sort()
    .filter((k) => obj[k] !== undefined)
    .map((k) => `${JSON.stringify(k)}:${stableStringify(obj[k], depth + 1)}`)
    .join(",")}}`;
}
