// One change to a stored snapshot, the way a shared store's instance computes it: the chart's transition
// through xstate's public `transition()` against the runtime's `nextSnapshot` (src/tasks/chart.ts, one inert
// actor scope made once). Paired rounds in one process; µs per step, and the ratio.
//   node --import tsx bench/chart-step.ts [--rounds 7] [--steps 50000]
import { parseArgs } from "node:util";
import { initialTransition, transition } from "xstate";
import { taskMachine, type TaskEvent } from "../machines/task.machine.ts";
import { nextSnapshot } from "../src/tasks/chart.ts";
import type { TaskSnapshotLike } from "../src/protocol/wire.ts";

const { values } = parseArgs({ options: { rounds: { type: "string", default: "7" }, steps: { type: "string", default: "50000" } } });
const STEPS = Number(values.steps);
const input = { taskId: "bench", now: 0, ttlMs: 600_000, pollIntervalMs: 1000 };
// A persisted snapshot (plain JSON, as read back), and the events a shared store applies most.
const stored = JSON.parse(JSON.stringify({ value: "working", context: initialTransition(taskMachine, input)[0].context })) as TaskSnapshotLike;
const events: TaskEvent[] = [
  { type: "status.update", statusMessage: "step", at: 1 },
  { type: "input.request", requests: { q: { method: "roots/list" } }, at: 1 },
  { type: "task.cancel", at: 1 },
  { type: "work.done", result: { content: [] }, at: 1 },
];

const viaPublic = () => {
  const t = performance.now();
  for (let i = 0; i < STEPS; i++) {
    const state = taskMachine.resolveState({ value: stored.value, context: stored.context });
    transition(taskMachine, state, events[i & 3]!);
  }
  return ((performance.now() - t) * 1000) / STEPS;
};
const viaScope = () => {
  const t = performance.now();
  for (let i = 0; i < STEPS; i++) nextSnapshot(stored, events[i & 3]!);
  return ((performance.now() - t) * 1000) / STEPS;
};

viaPublic();
viaScope();
const ratios: number[] = [];
for (let round = 1; round <= Number(values.rounds); round++) {
  // Alternate which goes first, so warming and collection fall on both alike.
  let pub: number, scope: number;
  if (round % 2) {
    pub = viaPublic();
    scope = viaScope();
  } else {
    scope = viaScope();
    pub = viaPublic();
  }
  ratios.push(pub / scope);
  console.log(`round ${round}: transition() ${pub.toFixed(2)} µs, nextSnapshot ${scope.toFixed(2)} µs per step (${(pub / scope).toFixed(2)}×)`);
}
console.log(`median transition() ÷ nextSnapshot: ${[...ratios].sort((x, y) => x - y)[ratios.length >> 1]!.toFixed(2)}×`);
