// The options check itself: which name it suggests for a misspelt key, what its TypeErrors say, and what it
// lets through. Its use on every public entry is test/unit/options-check.test.ts.
import { describe, expect, it } from "vitest";
import { checkOneOf, checkOptions, nearestName, type OptionNames } from "../../src/utils/options.ts";

describe("nearestName", () => {
  const known = ["ttlMs", "pollIntervalMs", "leaseMs", "plugins", "max", "maxPerOwner", "store"];
  it.each([
    ["ttl", "ttlMs"],
    ["pollInterval", "pollIntervalMs"],
    ["leaseMS", "leaseMs"],
    ["LEASEMS", "leaseMs"],
    ["lease_ms", "leaseMs"],
    ["plugin", "plugins"],
    ["maxPerOwnr", "maxPerOwner"],
    ["stroe", "store"],
    ["mx", "max"],
  ])("suggests for %s: %s", (given, expected) => {
    expect(nearestName(given, known)).toBe(expected);
  });

  it("suggests nothing for a name near none", () => {
    expect(nearestName("secret", known)).toBeUndefined();
    expect(nearestName("zzzzzzzz", known)).toBeUndefined();
    expect(nearestName("a", ["bcd"])).toBeUndefined();
  });
});

describe("checkOptions", () => {
  const known = ["ttlMs", "pollIntervalMs", "store"];

  it("lets through known keys, an empty object and options left out", () => {
    expect(() => checkOptions("f()", { ttlMs: 1, store: undefined }, known)).not.toThrow();
    expect(() => checkOptions("f()", {}, known)).not.toThrow();
    expect(() => checkOptions("f()", undefined, known)).not.toThrow();
  });

  it("refuses an unknown key with a TypeError naming it and the nearest known one", () => {
    const check = () => checkOptions("mcpTasks()", { ttl: 5 }, known);
    expect(check).toThrow(TypeError);
    expect(check).toThrow('mcpTasks(): unknown option "ttl" (did you mean "ttlMs"?)');
  });

  it("refuses a key that is left undefined, since it is still misspelt", () => {
    expect(() => checkOptions("f()", { ttl: undefined }, known)).toThrow('unknown option "ttl"');
  });

  it("names every unknown key at once, and lists the known ones when none is near", () => {
    expect(() => checkOptions("f()", { ttl: 1, pollInterval: 2, zzzz: 3 }, known)).toThrow(
      'f(): unknown option "ttl" (did you mean "ttlMs"?); unknown option "pollInterval" (did you mean "pollIntervalMs"?); unknown option "zzzz" (known: ttlMs, pollIntervalMs, store)',
    );
  });

  it("says where a key that belongs elsewhere goes, in any case", () => {
    const how = { elsewhere: { secret: "secret is the store's option" } };
    expect(() => checkOptions("mcpTasks()", { Secret: "x" }, known, how)).toThrow(`mcpTasks(): unknown option "Secret" (secret is the store's option)`);
  });

  it("names keys of a nested object by their path", () => {
    expect(() => checkOptions('Tool "t"', { taskSuport: "optional" }, ["taskSupport"], { path: "execution" })).toThrow(
      'Tool "t": unknown option "execution.taskSuport" (did you mean "execution.taskSupport"?)',
    );
  });

  it.each([
    [null, "null"],
    ["x", 'the string "x"'],
    [3, "the number 3"],
    [[1], "an array"],
  ])("refuses %j where an options object belongs", (value, described) => {
    expect(() => checkOptions("f()", value, known)).toThrow(`f(): the options must be an object, not ${described}`);
    expect(() => checkOptions("f()", value, known, { path: "legacy" })).toThrow(`f(): "legacy" must be an object, not ${described}`);
  });

  it("takes the known keys as an OptionNames record, which the compiler holds to the type", () => {
    interface Opts {
      ttlMs?: number;
      store: string;
    }
    const names: OptionNames<Opts> = { ttlMs: true, store: true };
    expect(() => checkOptions("f()", { ttlMs: 1, store: "s" }, names)).not.toThrow();
    expect(() => checkOptions("f()", { stor: "s" }, names)).toThrow('unknown option "stor" (did you mean "store"?)');
    // @ts-expect-error a name the type does not have
    const extra: OptionNames<Opts> = { ttlMs: true, store: true, other: true };
    // @ts-expect-error a name the type has, left out
    const missing: OptionNames<Opts> = { ttlMs: true };
    expect([extra, missing]).toHaveLength(2);
  });
});

describe("checkOneOf", () => {
  const allowed = ["required", "optional", "forbidden"] as const;
  it("lets through an allowed value and a value left out", () => {
    expect(() => checkOneOf("f()", "taskSupport", "optional", allowed)).not.toThrow();
    expect(() => checkOneOf("f()", "taskSupport", undefined, allowed)).not.toThrow();
  });
  it("refuses any other value, naming the key, the value and the choices", () => {
    expect(() => checkOneOf('Tool "t"', "execution.taskSupport", "always", allowed)).toThrow(
      new TypeError('Tool "t": execution.taskSupport must be "required", "optional" or "forbidden", not "always"'),
    );
    expect(() => checkOneOf("f()", "taskSupport", "Optional", allowed)).toThrow('not "Optional" (did you mean "optional"?)');
    expect(() => checkOneOf("f()", "taskSupport", 1, allowed)).toThrow("not the number 1");
  });
});
