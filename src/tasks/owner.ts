// Owners as a store compares them: `bind` values cross processes (a shared store), so they are compared
// by value. A string is its own key; any other JSON value is keyed by its canonical JSON (object keys
// sorted), so `{ iss, sub }` built fresh on every request is the same owner each time.

/** The owner of a task nobody is bound to (no `bind`, or `bind` answered undefined). */
export const UNBOUND = "";

/**
 * The owner key of a `bind` value; undefined for a value that is neither a string nor JSON data. A task
 * created with such a value is refused; a later request with one matches nothing.
 */
export function ownerKey(value: unknown): string | undefined {
  if (value === undefined) return UNBOUND;
  // The tag keeps the string "1" and the number 1 apart.
  if (typeof value === "string") return `s${value}`;
  const json = canonicalJson(value);
  return json === undefined ? undefined : `j${json}`;
}

/** What creating a task with an owner that is not a key answers (see `ownerKey`). */
export function unkeyableOwner(): TypeError {
  return new TypeError("bind must return a string or a JSON value (tasks are bound to it by its canonical JSON)");
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
