import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { initialTransition, transition, type SnapshotFrom } from "xstate";
import {
  taskMachine,
  type InputRequest,
  type TaskEvent,
  type TaskInput,
  type TaskStatus,
} from "../../machines/task.machine.ts";

type Snapshot = SnapshotFrom<typeof taskMachine>;

const T0 = 1_785_000_000_000;
const INPUT: TaskInput = { taskId: "task-1", now: T0, ttlMs: 600_000, pollIntervalMs: 1000, statusMessage: "Queued" };

const ask = (message: string): InputRequest => ({
  method: "elicitation/create",
  params: { message, requestedSchema: { type: "object", properties: { ok: { type: "boolean" } } } },
});
const accept = { action: "accept", content: { ok: true } };

function start(input: TaskInput = INPUT): Snapshot {
  return initialTransition(taskMachine, input)[0];
}

function step(snapshot: Snapshot, event: TaskEvent): Snapshot {
  return transition(taskMachine, snapshot, event)[0];
}

function run(events: TaskEvent[], from: Snapshot = start()): Snapshot {
  return events.reduce(step, from);
}

/** One event of every type, all at time `at`. */
function everyEvent(at: number): TaskEvent[] {
  return [
    { type: "status.update", statusMessage: "Later", at },
    { type: "input.request", requests: { late: ask("Late?") }, at },
    { type: "input.answer", responses: { confirm: accept, "confirm.2": accept, late: accept }, at },
    { type: "work.done", result: { content: [] }, at },
    { type: "work.toolError", message: "late", at },
    { type: "work.protocolError", error: { code: -32000, message: "late" }, at },
    { type: "task.cancel", at },
    { type: "task.expire", at },
  ];
}

const parked = (): Snapshot =>
  run([{ type: "input.request", requests: { confirm: ask("Sure?"), name: ask("Name?") }, at: T0 + 10 }]);

describe("initial snapshot", () => {
  it("starts working with the input copied into context", () => {
    const s = start();
    expect(s.value).toBe("working");
    expect(s.status).toBe("active");
    expect(s.context).toStrictEqual({
      taskId: "task-1",
      statusMessage: "Queued",
      createdAt: T0,
      lastUpdatedAt: T0,
      ttlMs: 600_000,
      pollIntervalMs: 1000,
      inputRequests: {},
      inputKeys: {},
      issuedKeys: [],
      answers: {},
    });
  });

  it("leaves statusMessage out when none is given and keeps a null ttl", () => {
    const s = start({ taskId: "t", now: 5, ttlMs: null, pollIntervalMs: 250 });
    expect(s.context).not.toHaveProperty("statusMessage");
    expect(s.context.ttlMs).toBeNull();
    expect(s.context.pollIntervalMs).toBe(250);
  });
});

describe("status.update", () => {
  it("updates the message and lastUpdatedAt while working", () => {
    const s = step(start(), { type: "status.update", statusMessage: "Frame 1/100", at: T0 + 1 });
    expect(s.value).toBe("working");
    expect(s.context.statusMessage).toBe("Frame 1/100");
    expect(s.context.lastUpdatedAt).toBe(T0 + 1);
  });

  it("treats the current message again as no change", () => {
    const before = start();
    expect(step(before, { type: "status.update", statusMessage: "Queued", at: T0 + 1 })).toBe(before);
    const empty = start({ taskId: "t", now: 5, ttlMs: null, pollIntervalMs: 250 });
    const s = step(empty, { type: "status.update", statusMessage: "", at: 6 });
    expect(s.context.statusMessage).toBe("");
    expect(s.context.lastUpdatedAt).toBe(6);
  });

  it("updates the message while parked, keeping the requests", () => {
    const before = parked();
    const s = step(before, { type: "status.update", statusMessage: "Waiting for you", at: T0 + 20 });
    expect(s.value).toBe("input_required");
    expect(s.context.statusMessage).toBe("Waiting for you");
    expect(s.context.lastUpdatedAt).toBe(T0 + 20);
    expect(s.context.inputRequests).toStrictEqual(before.context.inputRequests);
  });
});

describe("input.request", () => {
  it("parks the task with the requests under their own names", () => {
    const s = parked();
    expect(s.value).toBe("input_required");
    expect(s.context.inputRequests).toStrictEqual({ confirm: ask("Sure?"), name: ask("Name?") });
    expect(s.context.inputKeys).toStrictEqual({ confirm: "confirm", name: "name" });
    expect(s.context.issuedKeys).toStrictEqual(["confirm", "name"]);
    expect(s.context.lastUpdatedAt).toBe(T0 + 10);
  });

  it("does not park on an empty batch", () => {
    const before = start();
    const s = step(before, { type: "input.request", requests: {}, at: T0 + 5 });
    expect(s.value).toBe("working");
    expect(s.context).toStrictEqual(before.context);
  });

  it("is ignored while already parked", () => {
    const before = parked();
    const s = step(before, { type: "input.request", requests: { other: ask("Other?") }, at: T0 + 30 });
    expect(s).toBe(before);
  });

  it("clears the previous round's answers", () => {
    const s = run([
      { type: "input.request", requests: { confirm: ask("1") }, at: T0 + 1 },
      { type: "input.answer", responses: { confirm: accept }, at: T0 + 2 },
    ]);
    expect(s.context.answers).toStrictEqual({ confirm: accept });
    const next = step(s, { type: "input.request", requests: { other: ask("2") }, at: T0 + 3 });
    expect(next.context.answers).toStrictEqual({});
  });
});

describe("wire-key naming", () => {
  /** Ask `requests`, then answer every outstanding key, so the next round can be asked. */
  function round(s: Snapshot, requests: Record<string, InputRequest>, at: number): Snapshot {
    const asked = step(s, { type: "input.request", requests, at });
    const responses = Object.fromEntries(Object.keys(asked.context.inputRequests).map((k) => [k, accept]));
    return step(asked, { type: "input.answer", responses, at: at + 1 });
  }

  it("renames a key asked again: confirm, confirm.2, confirm.3", () => {
    let s = start();
    const seen: string[][] = [];
    for (let i = 0; i < 3; i++) {
      const asked = step(s, { type: "input.request", requests: { confirm: ask(`#${i}`) }, at: T0 + 10 * i });
      seen.push(Object.keys(asked.context.inputRequests));
      expect(Object.values(asked.context.inputKeys)).toStrictEqual(["confirm"]);
      s = step(asked, {
        type: "input.answer",
        responses: Object.fromEntries(seen[i]!.map((k) => [k, accept])),
        at: T0 + 10 * i + 1,
      });
      // The tool reads its answer under the key it asked with, whatever the wire called it.
      expect(s.context.answers).toStrictEqual({ confirm: accept });
    }
    expect(seen).toStrictEqual([["confirm"], ["confirm.2"], ["confirm.3"]]);
    expect(s.context.issuedKeys).toStrictEqual(["confirm", "confirm.2", "confirm.3"]);
  });

  it("skips a suffix the tool itself used as a key", () => {
    let s = round(start(), { confirm: ask("a") }, T0 + 1);
    s = round(s, { "confirm.2": ask("b") }, T0 + 10);
    const asked = step(s, { type: "input.request", requests: { confirm: ask("c") }, at: T0 + 20 });
    expect(asked.context.inputKeys).toStrictEqual({ "confirm.3": "confirm" });
    expect(asked.context.issuedKeys).toStrictEqual(["confirm", "confirm.2", "confirm.3"]);
  });

  it("gives a user key its own name even when a renamed key in the same batch would want it", () => {
    const s = round(start(), { confirm: ask("a") }, T0 + 1);
    const asked = step(s, {
      type: "input.request",
      requests: { confirm: ask("b"), "confirm.2": ask("c") },
      at: T0 + 10,
    });
    expect(asked.context.inputKeys).toStrictEqual({ "confirm.3": "confirm", "confirm.2": "confirm.2" });
    expect(asked.context.inputRequests["confirm.3"]).toStrictEqual(ask("b"));
    expect(asked.context.inputRequests["confirm.2"]).toStrictEqual(ask("c"));
  });

  it("never issues the same wire key twice, even for keys asked many times in mixed batches", () => {
    let s = start();
    for (let i = 0; i < 6; i++) {
      s = round(s, { confirm: ask("x"), "confirm.2": ask("y"), "confirm.3": ask("z") }, T0 + 10 * i);
    }
    expect(new Set(s.context.issuedKeys).size).toBe(s.context.issuedKeys.length);
    expect(s.context.issuedKeys).toHaveLength(18);
  });
});

describe("input.answer", () => {
  it("accepts a partial answer and stays parked", () => {
    const s = step(parked(), { type: "input.answer", responses: { confirm: accept }, at: T0 + 20 });
    expect(s.value).toBe("input_required");
    expect(Object.keys(s.context.inputRequests)).toStrictEqual(["name"]);
    expect(s.context.inputKeys).toStrictEqual({ name: "name" });
    expect(s.context.answers).toStrictEqual({ confirm: accept });
    expect(s.context.lastUpdatedAt).toBe(T0 + 20);
  });

  it("goes back to working once the last key is answered", () => {
    const s = run(
      [
        { type: "input.answer", responses: { confirm: accept }, at: T0 + 20 },
        { type: "input.answer", responses: { name: { action: "decline" } }, at: T0 + 30 },
      ],
      parked(),
    );
    expect(s.value).toBe("working");
    expect(s.context.inputRequests).toStrictEqual({});
    expect(s.context.inputKeys).toStrictEqual({});
    expect(s.context.answers).toStrictEqual({ confirm: accept, name: { action: "decline" } });
    expect(s.context.lastUpdatedAt).toBe(T0 + 30);
  });

  it("accepts every key at once", () => {
    const s = step(parked(), {
      type: "input.answer",
      responses: { confirm: accept, name: { action: "cancel" } },
      at: T0 + 20,
    });
    expect(s.value).toBe("working");
    expect(s.context.answers).toStrictEqual({ confirm: accept, name: { action: "cancel" } });
  });

  it("ignores keys that were never issued, next to valid ones", () => {
    const s = step(parked(), {
      type: "input.answer",
      responses: { confirm: accept, bogus: accept, "name.2": accept },
      at: T0 + 20,
    });
    expect(s.value).toBe("input_required");
    expect(s.context.answers).toStrictEqual({ confirm: accept });
    expect(Object.keys(s.context.inputRequests)).toStrictEqual(["name"]);
  });

  it("changes nothing, not even lastUpdatedAt, when no key is outstanding", () => {
    const before = parked();
    for (const responses of [{}, { bogus: accept }, { __proto__: accept } as Record<string, unknown>]) {
      const s = step(before, { type: "input.answer", responses, at: T0 + 99 });
      expect(s).toBe(before);
      expect(s.context.lastUpdatedAt).toBe(T0 + 10);
    }
  });

  it("ignores an already consumed key", () => {
    const once = step(parked(), { type: "input.answer", responses: { confirm: accept }, at: T0 + 20 });
    const twice = step(once, { type: "input.answer", responses: { confirm: { action: "decline" } }, at: T0 + 30 });
    expect(twice).toBe(once);
    expect(twice.context.answers).toStrictEqual({ confirm: accept });
  });

  it("ignores a key from an earlier round", () => {
    const s = run(
      [
        { type: "input.answer", responses: { confirm: accept, name: accept }, at: T0 + 20 },
        { type: "input.request", requests: { confirm: ask("again") }, at: T0 + 30 },
      ],
      parked(),
    );
    expect(s.context.inputKeys).toStrictEqual({ "confirm.2": "confirm" });
    const stale = step(s, { type: "input.answer", responses: { confirm: { action: "decline" } }, at: T0 + 40 });
    expect(stale).toBe(s);
    const fresh = step(s, { type: "input.answer", responses: { "confirm.2": accept }, at: T0 + 50 });
    expect(fresh.value).toBe("working");
    expect(fresh.context.answers).toStrictEqual({ confirm: accept });
  });

  it("is ignored while working", () => {
    const before = start();
    const s = step(before, { type: "input.answer", responses: { confirm: accept }, at: T0 + 1 });
    expect(s).toBe(before);
  });

  it("does not let a key named like an Object.prototype member slip through", () => {
    const before = parked();
    const s = step(before, {
      type: "input.answer",
      responses: JSON.parse('{"__proto__": {"x": 1}, "constructor": 1, "toString": 2}') as Record<string, unknown>,
      at: T0 + 20,
    });
    expect(s).toBe(before);
  });
});

describe("ways out", () => {
  const from: Record<"working" | "input_required", () => Snapshot> = {
    working: () => start(),
    input_required: parked,
  };

  for (const [name, make] of Object.entries(from)) {
    describe(`from ${name}`, () => {
      it("work.done → completed with the result", () => {
        const result = { content: [{ type: "text", text: "Rendered." }] };
        const s = step(make(), { type: "work.done", result, at: T0 + 100 });
        expect(s.value).toBe("completed");
        expect(s.status).toBe("done");
        expect(s.context.result).toStrictEqual(result);
        expect(s.context.inputRequests).toStrictEqual({});
        expect(s.context.inputKeys).toStrictEqual({});
        expect(s.context).not.toHaveProperty("error");
        expect(s.context.lastUpdatedAt).toBe(T0 + 100);
      });

      it("work.toolError → completed with an isError result", () => {
        const s = step(make(), { type: "work.toolError", message: "upstream refused", at: T0 + 100 });
        expect(s.value).toBe("completed");
        expect(s.context.result).toStrictEqual({
          content: [{ type: "text", text: "upstream refused" }],
          isError: true,
        });
        expect(s.context.inputRequests).toStrictEqual({});
      });

      it("work.protocolError → failed with the error", () => {
        const error = { code: -32603, message: "API rate limit exceeded", data: { retryAfter: 3 } };
        const s = step(make(), { type: "work.protocolError", error, at: T0 + 100 });
        expect(s.value).toBe("failed");
        expect(s.status).toBe("done");
        expect(s.context.error).toStrictEqual(error);
        expect(s.context).not.toHaveProperty("result");
        expect(s.context.inputRequests).toStrictEqual({});
        // A failed task says why.
        expect(s.context.statusMessage).toBe("API rate limit exceeded");
      });

      it("task.cancel → cancelled, dropping outstanding requests", () => {
        const s = step(make(), { type: "task.cancel", at: T0 + 100 });
        expect(s.value).toBe("cancelled");
        expect(s.status).toBe("done");
        expect(s.context.inputRequests).toStrictEqual({});
        expect(s.context.inputKeys).toStrictEqual({});
        expect(s.context.lastUpdatedAt).toBe(T0 + 100);
      });

      it("task.expire → failed with the expiry error", () => {
        const s = step(make(), { type: "task.expire", at: T0 + 100 });
        expect(s.value).toBe("failed");
        expect(s.context.error).toStrictEqual({ code: -32603, message: "Task expired before it finished" });
        expect(s.context.statusMessage).toBe("Expired");
        expect(s.context.inputRequests).toStrictEqual({});
      });
    });
  }

  it("keeps the answers of the last round when the work finishes", () => {
    const s = run([
      { type: "input.request", requests: { confirm: ask("?") }, at: T0 + 1 },
      { type: "input.answer", responses: { confirm: accept }, at: T0 + 2 },
      { type: "work.done", result: { content: [] }, at: T0 + 3 },
    ]);
    expect(s.context.answers).toStrictEqual({ confirm: accept });
  });
});

describe("final states", () => {
  const finals: Record<Extract<TaskStatus, "completed" | "failed" | "cancelled">, TaskEvent> = {
    completed: { type: "work.done", result: { content: [] }, at: T0 + 50 },
    failed: { type: "work.protocolError", error: { code: -32001, message: "boom" }, at: T0 + 50 },
    cancelled: { type: "task.cancel", at: T0 + 50 },
  };

  for (const [state, ending] of Object.entries(finals)) {
    for (const source of ["working", "input_required"] as const) {
      it(`${state} (reached from ${source}) ignores every later event`, () => {
        const final = step(source === "working" ? start() : parked(), ending);
        expect(final.value).toBe(state);
        const frozen = JSON.stringify(final.context);
        for (const late of everyEvent(T0 + 1000)) {
          const s = step(final, late);
          expect(s).toBe(final);
          expect(s.value).toBe(state);
          expect(s.status).toBe("done");
          expect(JSON.stringify(s.context)).toBe(frozen);
        }
      });
    }
  }
});

describe("lastUpdatedAt", () => {
  it("moves only when an event changes something", () => {
    const steps: Array<[TaskEvent, boolean]> = [
      [{ type: "input.answer", responses: { x: 1 }, at: T0 + 1 }, false], // working: ignored
      [{ type: "input.request", requests: {}, at: T0 + 2 }, false], // empty batch
      [{ type: "status.update", statusMessage: "a", at: T0 + 3 }, true],
      [{ type: "status.update", statusMessage: "a", at: T0 + 3.5 }, false], // same message
      [{ type: "input.request", requests: { a: ask("a"), b: ask("b") }, at: T0 + 4 }, true],
      [{ type: "input.request", requests: { c: ask("c") }, at: T0 + 5 }, false], // already parked
      [{ type: "input.answer", responses: { nope: 1 }, at: T0 + 6 }, false],
      [{ type: "input.answer", responses: { a: 1 }, at: T0 + 7 }, true],
      [{ type: "input.answer", responses: { a: 2 }, at: T0 + 8 }, false], // consumed
      [{ type: "input.answer", responses: { b: 1 }, at: T0 + 9 }, true],
      [{ type: "work.done", result: {}, at: T0 + 10 }, true],
      [{ type: "status.update", statusMessage: "late", at: T0 + 11 }, false],
    ];
    let s = start();
    for (const [event, moves] of steps) {
      const before = s.context.lastUpdatedAt;
      s = step(s, event);
      expect(s.context.lastUpdatedAt, event.type).toBe(moves ? event.at : before);
    }
    expect(s.context.createdAt).toBe(T0);
  });
});

describe("context", () => {
  it("survives a JSON round-trip in every state", () => {
    const snapshots: Snapshot[] = [start(), start({ taskId: "t", now: 1, ttlMs: null, pollIntervalMs: 1 }), parked()];
    snapshots.push(step(parked(), { type: "input.answer", responses: { confirm: accept }, at: T0 + 20 }));
    for (const make of [start, parked]) {
      for (const event of everyEvent(T0 + 100)) snapshots.push(step(make(), event));
    }
    expect(new Set(snapshots.map((s) => s.value))).toStrictEqual(
      new Set(["working", "input_required", "completed", "failed", "cancelled"]),
    );
    for (const s of snapshots) {
      expect(JSON.parse(JSON.stringify(s.context))).toStrictEqual(s.context);
    }
  });

  it("persists and restores through getPersistedSnapshot", () => {
    const s = step(parked(), { type: "input.answer", responses: { confirm: accept }, at: T0 + 20 });
    const persisted = JSON.parse(JSON.stringify(taskMachine.getPersistedSnapshot(s)));
    const restored = taskMachine.resolveState(persisted);
    expect(restored.value).toBe("input_required");
    expect(restored.context).toStrictEqual(s.context);
    const done = step(restored, { type: "input.answer", responses: { name: accept }, at: T0 + 30 });
    expect(done.value).toBe("working");
    expect(done.context.answers).toStrictEqual({ confirm: accept, name: accept });
  });
});

describe("machines/task.machine.ts", () => {
  const source = readFileSync(new URL("../../machines/task.machine.ts", import.meta.url), "utf8");

  it("imports nothing but xstate", () => {
    const specifiers = [...source.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s*["']([^"']+)["']/gms)].map(
      (m) => m[1],
    );
    expect(specifiers.length).toBeGreaterThan(0);
    expect(new Set(specifiers)).toStrictEqual(new Set(["xstate"]));
    expect(source).not.toMatch(/\bimport\s*\(|\brequire\s*\(/);
    expect(source).not.toMatch(/^\s*import\s+["']/m); // no side-effect imports
  });

  it("has no clock, randomness, timers or invoked actors", () => {
    // Comments may mention Date.now() in an example; the code must not.
    const code = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
    expect(code).not.toMatch(/Date\.now|new Date|Math\.random|crypto|setTimeout|setInterval/);
    for (const node of [taskMachine.root, ...Object.values(taskMachine.root.states)]) {
      expect(node.invoke, node.id).toHaveLength(0);
      expect(node.after, node.id).toHaveLength(0);
    }
  });

  it("declares exactly the five wire statuses, three of them final", () => {
    const states = taskMachine.root.states;
    expect(Object.keys(states)).toStrictEqual(["working", "input_required", "completed", "failed", "cancelled"]);
    expect(Object.entries(states).filter(([, node]) => node.type === "final").map(([name]) => name)).toStrictEqual([
      "completed",
      "failed",
      "cancelled",
    ]);
    expect(taskMachine.id).toBe("task");
  });
});
