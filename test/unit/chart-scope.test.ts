// tasks/chart.ts steps stored snapshots with its own copy of the scope xstate builds privately for its public
// transition() (createInertActorScope), built once instead of per step. This file fails the day xstate's own
// scope changes shape, so the copy is brought in line (or dropped for transition()) before it drifts.
import { type ActorScope, type AnyActorLogic, transition } from "xstate";
import { describe, expect, it } from "vitest";
import { taskMachine, type TaskEvent } from "../../machines/task.machine.ts";
import { inertScope, nextSnapshot } from "../../src/tasks/chart.ts";
import type { TaskSnapshot } from "../../src/tasks/envelopes.ts";

/** The scope xstate's public transition() hands the logic: a logic that is the chart but records its scope. */
function xstateScope(): ActorScope<any, any, any, any> {
  let seen: ActorScope<any, any, any, any> | undefined;
  const recording: AnyActorLogic = Object.create(taskMachine, {
    transition: {
      value(snapshot: unknown, event: unknown, scope: ActorScope<any, any, any, any>) {
        seen = scope;
        return taskMachine.transition(snapshot as never, event as never, scope as never);
      },
    },
  });
  transition(recording, taskMachine.resolveState({ value: "working", context: stored.context }) as never, { type: "task.cancel", at: 2 } as never);
  if (!seen) throw new Error("xstate's transition() did not call the logic's transition");
  return seen;
}

const stored: TaskSnapshot = JSON.parse(
  JSON.stringify({
    value: "working",
    context: { taskId: "t", createdAt: 1, lastUpdatedAt: 1, ttlMs: null, pollIntervalMs: 100, inputRequests: {}, inputKeys: {}, issuedKeys: [], answers: {} },
  }),
);

const shape = (scope: object) => Object.fromEntries(Object.entries(scope).map(([key, value]) => [key, typeof value]));

describe("the chart's copy of xstate's inert actor scope", () => {
  it("has exactly the members, of the same kinds, that xstate's own scope has", () => {
    expect(shape(inertScope())).toEqual(shape(xstateScope()));
  });

  it("uses its actor's own system, as xstate's scope does", () => {
    const ours = inertScope();
    const theirs = xstateScope();
    expect(theirs.system).toBe(theirs.self.system);
    expect(ours.system).toBe(ours.self.system);
  });

  it("steps a stored snapshot to what xstate's transition() gives, for every kind of change", () => {
    const events: TaskEvent[] = [
      { type: "status.update", statusMessage: "step", at: 2 },
      { type: "input.request", requests: { q: { method: "roots/list" } as never }, at: 2 },
      { type: "work.done", result: { content: [] }, at: 2 },
      { type: "work.toolError", message: "no", at: 2 },
      { type: "task.cancel", at: 2 },
      { type: "task.expire", at: 2 },
    ];
    for (const event of events) {
      const [expected] = transition(taskMachine, taskMachine.resolveState({ value: stored.value, context: stored.context }), event);
      const step = nextSnapshot(stored, event);
      expect(step, event.type).toBeDefined();
      expect({ value: step!.snapshot.value, context: step!.snapshot.context }).toEqual({ value: expected.value, context: expected.context });
      expect(step!.final).toBe(expected.status === "done");
    }
  });
});
