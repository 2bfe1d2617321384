// Options objects checked where they are written: a misspelt key or an enum value out of range is refused
// with a TypeError naming it and the nearest known name, once, when the object is defined or mounted, so
// that no request ever pays for the check and no typo is found only on a call.

/**
 * Every key an options type may hold, each mapped to `true`: written as an object literal, the compiler
 * refuses a key the type does not have and asks for every key it has, so the list cannot drift from it.
 */
export type OptionNames<T> = { readonly [K in keyof Required<T> & string]: true };

/** How to name a key and where a key that is not this object's belongs. */
export interface CheckOptionsHow {
  /** The dotted path of a nested object (`"execution"`), put before each key it names. */
  path?: string;
  /** Keys that belong elsewhere, each with what to say instead of a suggestion. */
  elsewhere?: Readonly<Record<string, string>>;
}

const names = (known: readonly string[] | OptionNames<object>): readonly string[] => (Array.isArray(known) ? known : Object.keys(known));

/** A key as it would be typed by someone who remembered it loosely: case, `_` and `-` ignored. */
const loose = (key: string) => key.toLowerCase().replace(/[-_]/g, "");

/** Edit distance with adjacent transpositions (optimal string alignment), on short names only. */
function distance(a: string, b: string): number {
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, before[j - 2]! + 1);
      row.push(best);
    }
    before = previous;
    previous = row;
  }
  return previous[b.length]!;
}

/**
 * The known name nearest to `given`, or undefined when none is near enough to be what was meant: the
 * same name in another case, one that starts with it or it with that (`ttl` and `ttlMs`), or one within
 * a third of its length of edits (at least two).
 */
export function nearestName(given: string, known: readonly string[]): string | undefined {
  const g = loose(given);
  let found: string | undefined;
  let score = Infinity;
  for (const name of known) {
    const n = loose(name);
    const edits = distance(g, n);
    const prefix = g.length >= 3 && (n.startsWith(g) || g.startsWith(n));
    const s = prefix ? Math.min(edits, 1.5) : edits;
    if (s < score && (prefix || edits <= Math.max(2, Math.floor(g.length / 3)))) {
      found = name;
      score = s;
    }
  }
  return found;
}

const quote = (s: string) => JSON.stringify(s);

function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return `the string ${quote(value)}`;
  return typeof value === "object" ? "an object" : `the ${typeof value} ${String(value)}`;
}

/**
 * Refuses an options object holding a key not in `known`: a TypeError that names every such key and, for
 * each, the nearest known one, or else lists what is known. `undefined` passes (options left out); any
 * other value that is not a plain object is refused too.
 *
 * @example
 * checkOptions("mcpTasks()", options, ["ttlMs", "pollIntervalMs"]);
 * // mcpTasks({ ttl: 5 }) throws: mcpTasks(): unknown option "ttl" (did you mean "ttlMs"?)
 */
export function checkOptions(where: string, value: unknown, known: readonly string[] | OptionNames<object>, how: CheckOptionsHow = {}): void {
  if (value === undefined) return;
  const at = how.path ? `${how.path}.` : "";
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new TypeError(`${where}: ${how.path ? `${quote(how.path)} ` : "the options "}must be an object, not ${describeValue(value)}`);
  }
  const list = names(known);
  const unknown = Object.keys(value).filter((key) => !list.includes(key));
  if (unknown.length === 0) return;
  const elsewhere = new Map(Object.entries(how.elsewhere ?? {}).map(([key, note]) => [loose(key), note]));
  const told = unknown.map((key) => {
    const note = elsewhere.get(loose(key));
    if (note !== undefined) return `unknown option ${quote(at + key)} (${note})`;
    const near = nearestName(key, list);
    return `unknown option ${quote(at + key)} (${near === undefined ? `known: ${list.map((n) => at + n).join(", ")}` : `did you mean ${quote(at + near)}?`})`;
  });
  throw new TypeError(`${where}: ${told.join("; ")}`);
}

/**
 * Refuses a value outside `allowed` (left out, `undefined`, passes): a TypeError naming the key, the value
 * given, and what it may be.
 *
 * @example
 * checkOneOf('Tool "t"', "execution.taskSupport", "always", ["required", "optional", "forbidden"]);
 * // throws: Tool "t": execution.taskSupport must be "required", "optional" or "forbidden", not "always"
 */
export function checkOneOf<T>(where: string, key: string, value: unknown, allowed: readonly T[]): asserts value is T | undefined {
  if (value === undefined || allowed.includes(value as T)) return;
  const shown = allowed.map((a) => (typeof a === "string" ? quote(a) : String(a)));
  const choices = shown.length > 1 ? `${shown.slice(0, -1).join(", ")} or ${shown.at(-1)}` : shown.join("");
  const near = typeof value === "string" ? nearestName(value, allowed.filter((a): a is T & string => typeof a === "string")) : undefined;
  const hint = near === undefined ? "" : ` (did you mean ${quote(near)}?)`;
  const given = typeof value === "string" ? quote(value) : describeValue(value);
  throw new TypeError(`${where}: ${key} must be ${choices}, not ${given}${hint}`);
}
