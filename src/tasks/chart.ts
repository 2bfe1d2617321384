// The chart as the runtime uses it on a snapshot it did not compute itself (one read from a shared
// store): the next snapshot is the chart's pure transition, so the chart alone decides what changes.
import { type ActorScope, type AnyMachineSnapshot, createActor } from "xstate";
import { taskMachine, type TaskContext, type TaskEvent, type TaskStatus } from "../../machines/task.machine.ts";
import type { TaskSnapshot } from "./envelopes.ts";

/**
 * The chart's answer to `event` in `snapshot`: the next snapshot, or undefined when nothing changes.
 * `snapshot` may be a live actor's own snapshot (used as it is) or a plain stored one (resolved first).
 */
export function nextSnapshot(snapshot: TaskSnapshot, event: TaskEvent): { snapshot: TaskSnapshot; final: boolean } | undefined {
  const state = isMachineSnapshot(snapshot) ? snapshot : taskMachine.resolveState({ value: snapshot.value, context: snapshot.context });
  const next = taskMachine.transition(state as never, event, inertScope());
  // The chart hands back the very snapshot it was given when no transition was taken (an unknown
  // event, or a guard that refused: a repeated status message, an answer naming no open request).
  if (next === state) return undefined;
  return { snapshot: { value: next.value as TaskStatus, context: next.context as TaskContext }, final: next.status === "done" };
}

/**
 * Why not xstate's public `transition()`: it builds an actor, a system and a scope for every step, which costs
 * about 4× the step itself (`bench/fast-paths.ts --only scope`); a shared store takes a step per change. The
 * scope xstate's `createInertActorScope` would make is private, so it is built here once, from a public
 * `createActor`, on first use (nothing may run at import). xstate also swaps in a fresh system there, so that
 * children its eager initial snapshot spawned cannot collide by systemId: this chart spawns and invokes nothing
 * and only assigns, so one scope with the actor's own system serves every task. Exported for
 * test/unit/chart-scope.test.ts, which fails when xstate's own scope changes shape, so this copy follows it.
 */
let scope: ActorScope<any, any, any, any> | undefined;
export function inertScope(): ActorScope<any, any, any, any> {
  if (scope) return scope;
  const self = createActor(taskMachine, { input: { taskId: "", now: 0, ttlMs: null, pollIntervalMs: 0 } });
  const none = () => {};
  scope = { self, defer: none, id: "", logger: none, sessionId: "", stopChild: none, system: self.system, emit: none, actionExecutor: none } as never;
  return scope!;
}

function isMachineSnapshot(snapshot: TaskSnapshot): snapshot is TaskSnapshot & AnyMachineSnapshot {
  return (snapshot as Partial<AnyMachineSnapshot>).machine === taskMachine;
}
