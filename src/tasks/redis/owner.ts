// `bind` values cross processes, so they are compared by value: a string, or a JSON value by its
// canonical JSON. Redis only ever holds a keyed hash of it, never the principal itself.
import { createHmac } from "node:crypto";

/** The stored form of "no bind". */
export const NO_OWNER = "-";

/**
 * The keyed hash of an owner; undefined for a value that is neither a string nor JSON data.
 * A task created with such a value is refused (see `ownerHashOrThrow`); a later request with one matches nothing.
 */
export function ownerHash(owner: unknown, secret: string): string | undefined {
  if (owner === undefined) return NO_OWNER;
  const json = typeof owner === "string" ? undefined : canonicalJson(owner);
  if (typeof owner !== "string" && json === undefined) return undefined;
  // The tag keeps the string "1" and the number 1 apart.
  return createHmac("sha256", secret).update(typeof owner === "string" ? `s${owner}` : `j${json}`).digest("base64url");
}

export function ownerHashOrThrow(owner: unknown, secret: string): string {
  const hash = ownerHash(owner, secret);
  if (hash === undefined) {
    throw new TypeError("With a shared task store, bind must return a string or a JSON value (compared by its canonical JSON)");
  }
  return hash;
}

// --- Internal ---

/** JSON with object keys sorted, or undefined when the value is not JSON data. */
function canonicalJson(value: unknown, depth = 0): string | undefined {
  if (depth > 64) return undefined;
  if (value === null || typeof value === "boolean" || typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number") return Number.isFinite(value) ? JSON.stringify(value) : undefined;
  if (Array.isArray(value)) {
    const parts: string[] = [];
    for (const item of value) {
      const part = canonicalJson(item, depth + 1);
      if (part === undefined) return undefined;
      parts.push(part);
    }
    return `[${parts.join(",")}]`;
  }
  if (typeof value !== "object") return undefined;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return undefined;
  const parts: string[] = [];
  for (const key of Object.keys(value).sort()) {
    const part = canonicalJson((value as Record<string, unknown>)[key], depth + 1);
    if (part === undefined) return undefined;
    parts.push(`${JSON.stringify(key)}:${part}`);
  }
  return `{${parts.join(",")}}`;
}
