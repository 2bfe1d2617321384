// The kit's own assertions: a few, dependency-free, so a store's tests need nothing but a runner's
// `describe` and `it` (vitest, node:test, mocha, …). A failed one throws an Error that says what differed.

/** The failure of a kit check. */
export class KitAssertionError extends Error {
  override name = "KitAssertionError";
}

/** Throws unless `value` is truthy. */
export function ok(value: unknown, message: string): asserts value {
  if (!value) throw new KitAssertionError(message);
}

/**
 * Throws unless `actual` and `expected` are deeply equal: the same primitives, arrays of equal items,
 * objects with the same own keys (one holding `undefined` differs from one without it) and equal values.
 */
export function equal(actual: unknown, expected: unknown, message = "values differ"): void {
  const at = difference(actual, expected, "");
  if (at !== undefined) throw new KitAssertionError(`${message}: at ${at || "(top)"}\n  actual:   ${show(actual)}\n  expected: ${show(expected)}`);
}

/** Whether two values are deeply equal (see `equal`). */
export function isEqual(actual: unknown, expected: unknown): boolean {
  return difference(actual, expected, "") === undefined;
}

/** Throws unless `actual` holds every field of `expected` (deeply, recursively partial for objects). */
export function includes(actual: unknown, expected: Record<string, unknown>, message = "missing fields"): void {
  for (const [key, value] of Object.entries(expected)) {
    const got = (actual as Record<string, unknown> | undefined)?.[key];
    if (isPlainObject(value) && isPlainObject(got)) includes(got, value, `${message}: ${key}`);
    else if (difference(got, value, key) !== undefined) throw new KitAssertionError(`${message}: ${key} is ${show(got)}, expected ${show(value)}\n  in ${show(actual)}`);
  }
}

/** Throws unless `text` is a string that matches `pattern`. */
export function matches(text: unknown, pattern: RegExp, message = "no match"): void {
  if (typeof text !== "string" || !pattern.test(text)) throw new KitAssertionError(`${message}: ${show(text)} does not match ${pattern}`);
}

/** Retries `check` until it stops throwing, every `intervalMs`, for at most `timeoutMs`; then throws its last error. */
export async function eventually<T>(check: () => T | Promise<T>, timeoutMs: number, intervalMs = 5): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > end) throw error;
    }
    await sleep(intervalMs);
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

// --- Internal ---

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The path of the first difference, or undefined when equal. */
function difference(a: unknown, b: unknown, path: string): string | undefined {
  if (Object.is(a, b)) return undefined;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return path;
  if (Array.isArray(a) !== Array.isArray(b)) return path;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.length !== keysB.length) return path;
  for (const key of keysB) {
    if (!Object.hasOwn(a, key)) return `${path}.${key}`;
    const at = difference((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], `${path}.${key}`);
    if (at !== undefined) return at;
  }
  return undefined;
}

function show(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
