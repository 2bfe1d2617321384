import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createActor, initialTransition, transition, type Actor, type SnapshotFrom } from "xstate";
import {
  attemptLeftAfter,
  attemptsSpent,
  canOpenRound,
  isAnsweredRoundUnkept,
  isOpenRoundAskedWith,
  lastRoundWireKeys,
  roundAnswers,
  taskMachine,
  type InputRequest,
  type TaskEvent,
  type TaskInput,
  type TaskStatus,
} from "../../machines/task.machine.ts";
import { describePath, chartEventPaths, MODEL_INPUT, TASK_EVENT_TYPES } from "../../src/tasks/testing/chart-paths.ts";

type Snapshot = SnapshotFrom<typeof taskMachine>;

const STATUSES: readonly TaskStatus[] = ["working", "input_required", "completed", "failed", "cancelled"];
const FINAL: ReadonlySet<string> = new Set(["completed", "failed", "cancelled"]);

/** What a replay remembers between steps to check the invariants that span several steps. */
interface Tracker {
  /** Answers accepted since the current round opened, by user key. */
  accepted: Map<string, unknown>;
}

const withoutTime = ({ lastUpdatedAt: _, ...rest }: Snapshot["context"]) => JSON.stringify(rest);

/** The invariants every snapshot must satisfy on its own. */
function checkSnapshot(s: Snapshot, input: TaskInput): void {
  const { context: ctx } = s;
  const value = s.value as string;
  expect(STATUSES).toContain(value);
  expect(s.status).toBe(FINAL.has(value) ? "done" : "active");

  const outstanding = Object.keys(ctx.inputRequests);
  expect(outstanding.length > 0, "inputRequests non-empty iff input_required").toBe(value === "input_required");
  expect(Object.keys(ctx.inputKeys).sort()).toStrictEqual([...outstanding].sort());
  for (const key of outstanding) expect(ctx.issuedKeys).toContain(key);
  expect(new Set(ctx.issuedKeys).size, "issued keys unique").toBe(ctx.issuedKeys.length);

  if (value === "completed") {
    expect(ctx.result).toBeTypeOf("object");
    expect(ctx.error).toBeUndefined();
  } else if (value === "failed") {
    expect(ctx.error?.code).toBeTypeOf("number");
    expect(ctx.error?.message).toBeTypeOf("string");
    expect(ctx.result).toBeUndefined();
  } else {
    expect(ctx.result).toBeUndefined();
    expect(ctx.error).toBeUndefined();
  }

  expect(ctx.taskId).toBe(input.taskId);
  expect(ctx.createdAt).toBe(input.now);
  expect(ctx.ttlMs).toBe(input.ttlMs);
  expect(ctx.pollIntervalMs).toBe(input.pollIntervalMs);
  expect(JSON.parse(JSON.stringify(ctx))).toStrictEqual(ctx);
}

/** The invariants that relate a snapshot to the one before it and the event in between. */
function checkStep(prev: Snapshot, event: TaskEvent, next: Snapshot, tracker: Tracker): void {
  if (prev.status === "done") {
    expect(next.value, "final states stay final").toBe(prev.value);
    expect(next.context).toStrictEqual(prev.context);
    return;
  }

  // The chart records what ended the task, from the ending event alone, and only once it ended.
  if (next.status === "done") expect(next.context.endedBy, "what ended the task").toBe(endingOf(event));
  else expect(next.context.endedBy).toBeUndefined();

  // Hand-offs are counted one at a time, each by the release of a drained attempt, and never uncounted.
  const handedOff = (next.context.handedOff ?? 0) - (prev.context.handedOff ?? 0);
  const handOff = event.type === "attempt.lost" && event.reason === "shutdown" && prev.context.released !== true && next.context.released === true;
  expect(handedOff, "hand-offs counted").toBe(handOff ? 1 : 0);

  // Issued keys are only ever appended.
  expect(next.context.issuedKeys.slice(0, prev.context.issuedKeys.length)).toStrictEqual(prev.context.issuedKeys);

  // A status change counts as a change even when the context stays the same (cancelling a working task).
  if (next.value === prev.value && withoutTime(next.context) === withoutTime(prev.context)) {
    expect(next.context.lastUpdatedAt).toBe(prev.context.lastUpdatedAt);
  } else {
    expect(next.context.lastUpdatedAt).toBe(event.at);
  }

  if (prev.value === "working" && next.value === "input_required") tracker.accepted.clear();
  if (event.type === "input.answer" && prev.value === "input_required") {
    for (const [wireKey, answer] of Object.entries(event.responses)) {
      if (Object.hasOwn(prev.context.inputRequests, wireKey)) {
        tracker.accepted.set(prev.context.inputKeys[wireKey]!, answer);
        expect(next.context.inputRequests).not.toHaveProperty([wireKey]);
      }
    }
  }
  // Every answer accepted in this round stays readable, under the key the tool asked with.
  for (const [userKey, answer] of tracker.accepted) {
    expect(next.context.answers[userKey], `answer for ${userKey}`).toStrictEqual(answer);
  }
  expect(Object.keys(next.context.answers).sort()).toStrictEqual([...tracker.accepted.keys()].sort());
}

/** What the chart must record as the end of a task that `event` ended. */
function endingOf(event: TaskEvent): string {
  switch (event.type) {
    case "work.done":
      return "result";
    case "work.toolError":
      return "toolError";
    case "work.protocolError":
      return "protocolError";
    case "task.cancel":
      return "cancelled";
    case "task.expire":
      return "expired";
    case "instance.lost":
      return "lost";
    case "attempt.lost":
      return event.reason;
    case "attempt.claimed":
      // Only a claim judged against the run's budget ends a task: the attempts lost before it spent it.
      return "lost";
    default:
      throw new Error(`${event.type} never ends a task`);
  }
}

/**
 * Sends `event` to the actor and returns its next snapshot. A finished actor is stopped and would only log a
 * warning, so once the task is final the late event goes through the pure `transition` instead, which is
 * where "final states accept nothing" can still be checked.
 */
function advance(actor: Actor<typeof taskMachine>, prev: Snapshot, event: TaskEvent): Snapshot {
  if (prev.status === "done") return transition(taskMachine, prev, event)[0];
  actor.send(event);
  return actor.getSnapshot();
}

/** Replays `events` on a live actor, checking every step. Returns the visited snapshots. */
function replay(events: TaskEvent[], input: TaskInput = MODEL_INPUT): Snapshot[] {
  const actor = createActor(taskMachine, { input }).start();
  const tracker: Tracker = { accepted: new Map() };
  let prev = actor.getSnapshot();
  checkSnapshot(prev, input);
  const seen = [prev];
  for (const event of events) {
    const next = advance(actor, prev, event);
    checkSnapshot(next, input);
    checkStep(prev, event, next, tracker);
    seen.push(next);
    prev = next;
  }
  actor.stop();
  return seen;
}

describe("paths generated from the chart", () => {
  const paths = chartEventPaths();

  it("cover every status, every event type, partial answers and renamed keys", () => {
    expect(paths.length).toBeGreaterThan(20);
    const events = paths.flat();
    expect(new Set(events.map((e) => e.type))).toStrictEqual(
      new Set(TASK_EVENT_TYPES),
    );
    const finals = new Set(paths.map((p) => replay(p).at(-1)!.value));
    expect(finals).toStrictEqual(new Set(STATUSES));
    const issued = new Set(paths.flatMap((p) => replay(p).at(-1)!.context.issuedKeys));
    expect(issued).toStrictEqual(new Set(["confirm", "name", "confirm.2", "name.2", "confirm.3", "name.3"]));
    // Some path answers part of a round and stays parked.
    const partial = paths.some((p) =>
      replay(p).some((s) => s.value === "input_required" && Object.keys(s.context.answers).length > 0),
    );
    expect(partial).toBe(true);
  });

  it("are returned fresh on every call", () => {
    const again = chartEventPaths();
    expect(again).toStrictEqual(paths);
    again[0]!.pop();
    expect(chartEventPaths()).toStrictEqual(paths);
  });

  it.each(paths.map((events) => [describePath(events), events] as const))("%s", (_, events) => {
    replay(events);
  });
});

describe("attempts of a run found by name", () => {
  const at = MODEL_INPUT.now + 1000;
  const lost = (reason: "lost" | "shutdown" | "unserved" | "refused", retryable: boolean, maxAttempts = 3): TaskEvent => ({ type: "attempt.lost", reason, retryable, maxAttempts, at });

  it("keeps a retryable task working and released while attempts are left, then fails it with the count", () => {
    const seen = replay([{ type: "attempt.claimed", attempt: 1, at }, lost("lost", true), { type: "attempt.claimed", attempt: 2, at }, lost("lost", true), { type: "attempt.claimed", attempt: 3, at }, lost("lost", true)]);
    expect(seen.map((s) => [s.value, s.context.attempt, s.context.released])).toStrictEqual([
      ["working", undefined, undefined],
      ["working", 1, false],
      ["working", 1, true],
      ["working", 2, false],
      ["working", 2, true],
      ["working", 3, false],
      ["failed", 3, false],
    ]);
    expect(seen.at(-1)!.context.error).toStrictEqual({ code: -32603, message: "The server instance running this task was lost", data: { attempts: 3, reason: "lost" } });
  });

  it("spends no attempt on a drain's hand-off: handed off past maxAttempts, it stays working and counts the hand-offs", () => {
    const events: TaskEvent[] = [];
    for (let attempt = 1; attempt <= 5; attempt++) events.push({ type: "attempt.claimed", attempt, at }, lost("shutdown", true));
    const seen = replay(events);
    expect(seen.slice(1).map((s) => [s.value, s.context.attempt, s.context.released, s.context.handedOff])).toStrictEqual(
      [1, 2, 3, 4, 5].flatMap((attempt) => [
        ["working", attempt, false, attempt === 1 ? undefined : attempt - 1],
        ["working", attempt, true, attempt],
      ]),
    );
    expect(attemptsSpent(seen.at(-1)!.context)).toBe(0);
  });

  it("bounds the attempts lost, not those handed off, and says how many were handed off when it fails", () => {
    const claim = (attempt: number): TaskEvent => ({ type: "attempt.claimed", attempt, at });
    // Two hand-offs, then three losses: the third loss spends the last of 3 attempts.
    const seen = replay([claim(1), lost("shutdown", true), claim(2), lost("lost", true), claim(3), lost("shutdown", true), claim(4), lost("lost", true), claim(5), lost("lost", true)]);
    expect(seen.slice(1).filter((_, i) => i % 2 === 1).map((s) => [s.value, s.context.released, s.context.handedOff ?? 0, attemptsSpent(s.context)])).toStrictEqual([
      ["working", true, 1, 0],
      ["working", true, 1, 1],
      ["working", true, 2, 1],
      ["working", true, 2, 2],
      ["failed", false, 2, 3],
    ]);
    expect(seen.at(-1)!.context.error).toStrictEqual({
      code: -32603,
      message: "The server instance running this task was lost",
      data: { attempts: 5, reason: "lost", handedOff: 2 },
    });
  });

  it("fails a closure whose instance was lost, with the loss's message and no attempt count, from either live state", () => {
    const ask = { type: "input.request", requests: { confirm: { method: "elicitation/create" } }, at } as const;
    for (const before of [[], [ask]] as TaskEvent[][]) {
      const end = replay([...before, { type: "instance.lost", at: at + 1 }]).at(-1)!;
      expect([end.value, end.context.statusMessage, end.context.error, end.context.endedBy, end.context.inputRequests]).toStrictEqual([
        "failed",
        "The server instance running this task was lost",
        { code: -32603, message: "The server instance running this task was lost" },
        "lost",
        {},
      ]);
    }
  });

  it("records the drain's own failure as ended by shutdown, and an expiry as expired, whatever the error says", () => {
    expect(replay([{ type: "attempt.claimed", attempt: 1, at }, lost("shutdown", false, 1)]).at(-1)!.context.endedBy).toBe("shutdown");
    expect(replay([{ type: "task.expire", at }]).at(-1)!.context.endedBy).toBe("expired");
    // A run failing with the very error an expiry has is the run's protocol error, not an expiry.
    const copy = replay([{ type: "work.protocolError", error: { code: -32603, message: "Task expired before it finished" }, at }]).at(-1)!;
    expect([copy.value, copy.context.endedBy]).toStrictEqual(["failed", "protocolError"]);
  });

  it("judges a claim with the run's maxAttempts as the holder's loss, the spent attempts and the claim sent one by one would", () => {
    const lossArb = fc.record({ reason: fc.constantFrom("lost", "shutdown" as const), maxAttempts: fc.integer({ min: 1, max: 4 }) });
    const stepArb = fc.oneof(
      fc.integer({ min: 1, max: 6 }).map((attempt): TaskEvent => ({ type: "attempt.claimed", attempt, at })),
      lossArb.map(({ reason, maxAttempts }): TaskEvent => lost(reason, true, maxAttempts)),
    );
    fc.assert(
      fc.property(fc.array(stepArb, { maxLength: 6 }), fc.integer({ min: 1, max: 8 }), fc.integer({ min: 1, max: 4 }), (before, attempt, maxAttempts) => {
        // Stepped with the pure transition: this property compares two ways to the same end, from any state.
        const start = [{ type: "attempt.claimed", attempt: 1, at } as TaskEvent, ...before].reduce((snapshot, event) => transition(taskMachine, snapshot, event)[0], initialTransition(taskMachine, MODEL_INPUT)[0]);
        if (start.status === "done") return;
        // A store's claim always gives a fresh attempt: the attempt holding the task is never claimed again.
        if (attempt === start.context.attempt && start.context.released === false) return;
        const judged = transition(taskMachine, start, { type: "attempt.claimed", attempt, maxAttempts, at: at + 1 })[0];
        // What the runtime sent before the chart judged claims: the holder's loss unless it was released, a
        // second loss when the claim is past the budget, then the claim.
        let apart: Snapshot = start;
        if (apart.context.released !== true) apart = transition(taskMachine, apart, { ...lost("lost", maxAttempts > 1, maxAttempts), at: at + 1 })[0];
        if (apart.status !== "done" && attemptsSpent(apart.context, attempt) > maxAttempts) apart = transition(taskMachine, apart, { ...lost("lost", false, maxAttempts), at: at + 1 })[0];
        if (apart.status !== "done") apart = transition(taskMachine, apart, { type: "attempt.claimed", attempt, at: at + 1 })[0];
        expect([judged.value, judged.context]).toStrictEqual([apart.value, apart.context]);
      }),
      { numRuns: 300 },
    );
  });

  it("hands a task off or fails it, as the chart decides from the run's maxAttempts", () => {
    const handOff = (maxAttempts: number) => replay([{ type: "attempt.claimed", attempt: 1, at }, lost("shutdown", true, maxAttempts)]).at(-1)!;
    expect([handOff(2).value, handOff(2).context.released]).toStrictEqual(["working", true]);
    expect([handOff(1).value, handOff(1).context.endedBy, handOff(1).context.error?.data]).toStrictEqual(["failed", "shutdown", { attempts: 1, reason: "shutdown" }]);
  });

  it("never hands off a run that allows one attempt: the drain's loss fails it", () => {
    const end = replay([{ type: "attempt.claimed", attempt: 1, at }, lost("shutdown", true, 1)]).at(-1)!;
    expect([end.value, end.context.error?.data]).toStrictEqual(["failed", { attempts: 1, reason: "shutdown" }]);
  });

  it("agrees with the runtime's own counts: a claim past the budget is judged by attemptsSpent, a hand-off by attemptLeftAfter", () => {
    const context = { attempt: 4, handedOff: 2 };
    expect(attemptsSpent(context)).toBe(2);
    // Attempt 6 claimed after attempt 5 was lost unseen: 3 attempts spent before it, so with 3 it is past the budget.
    expect(attemptsSpent(context, 6)).toBe(4);
    expect(attemptLeftAfter(context, "lost", 3)).toBe(true);
    expect(attemptLeftAfter(context, "lost", 2)).toBe(false);
    expect(attemptLeftAfter(context, "shutdown", 2)).toBe(true);
    expect(attemptLeftAfter(context, "shutdown", 1)).toBe(false);
  });

  it("reads a snapshot persisted before hand-offs were counted as having none", () => {
    // As a store holds it: the value and the context, read back from JSON, without `handedOff`.
    const held = replay([{ type: "attempt.claimed", attempt: 2, at }], { ...MODEL_INPUT, attempt: 1 }).at(-1)!;
    const stored = JSON.parse(JSON.stringify({ value: held.value, context: held.context }));
    expect(stored.context).not.toHaveProperty("handedOff");
    const read = taskMachine.resolveState(stored);
    const released = transition(taskMachine, read, lost("lost", true))[0];
    expect([released.value, released.context.released, attemptsSpent(released.context)]).toStrictEqual(["working", true, 2]);
    const again = transition(taskMachine, transition(taskMachine, released, { type: "attempt.claimed", attempt: 3, at })[0], lost("shutdown", true))[0];
    expect(again.context).toMatchObject({ released: true, handedOff: 1 });
    expect(attemptsSpent(again.context)).toBe(2);
  });

  it("fails a run that is not retryable at its first loss, saying why", () => {
    for (const reason of ["lost", "shutdown", "unserved", "refused"] as const) {
      const end = replay([{ type: "attempt.claimed", attempt: 1, at }, lost(reason, false)]).at(-1)!;
      expect(end.value).toBe("failed");
      expect(end.context.error?.data).toStrictEqual({ attempts: 1, reason });
    }
  });

  it("keeps an open round and its wire keys across a lost attempt", () => {
    const request: TaskEvent = { type: "input.request", requests: { first: { method: "elicitation/create" } }, at };
    const seen = replay([{ type: "attempt.claimed", attempt: 1, at }, request, lost("shutdown", true), { type: "attempt.claimed", attempt: 2, at }]);
    expect(seen.slice(2).map((s) => [s.value, Object.keys(s.context.inputRequests)])).toStrictEqual([
      ["input_required", ["first"]],
      ["input_required", ["first"]],
      ["input_required", ["first"]],
    ]);
  });

  it("starts a run found by name held by attempt 1, or released at attempt 0 for a claim", () => {
    const held = replay([{ type: "attempt.claimed", attempt: 1, at }], { ...MODEL_INPUT, attempt: 1 });
    expect(held.map((s) => [s.value, s.context.attempt, s.context.released])).toStrictEqual([
      ["working", 1, false],
      ["working", 1, false],
    ]);
    const released = replay([{ type: "attempt.claimed", attempt: 1, at }, lost("lost", true)], { ...MODEL_INPUT, attempt: 0 });
    expect(released.map((s) => [s.value, s.context.attempt, s.context.released])).toStrictEqual([
      ["working", 0, true],
      ["working", 1, false],
      ["working", 1, true],
    ]);
  });

  it("cancels a released task, which then accepts no claim", () => {
    const seen = replay([{ type: "attempt.claimed", attempt: 1, at }, lost("shutdown", true), { type: "task.cancel", at }, { type: "attempt.claimed", attempt: 2, at }]);
    expect(seen.slice(-2).map((s) => [s.value, s.context.attempt])).toStrictEqual([
      ["cancelled", 1],
      ["cancelled", 1],
    ]);
  });
});

// --- Random sequences ---

const KEYS = ["confirm", "confirm.2", "confirm.3", "name", "name.2", "other"] as const;
const request = (key: string): InputRequest => ({ method: "elicitation/create", params: { message: `${key}?` } });
const answerValue = fc.oneof(
  fc.constant({ action: "accept", content: { ok: true } }),
  fc.constant({ action: "decline" }),
  fc.constant({ action: "cancel" }),
  fc.integer(),
);

/** A task event without its time. */
type Unstamped = { [T in TaskEvent["type"]]: Omit<Extract<TaskEvent, { type: T }>, "at"> }[TaskEvent["type"]];

/** An event before its time is known; answers may pick outstanding keys, resolved when replayed. */
type Draft =
  | { kind: "event"; event: Unstamped }
  | { kind: "answerOutstanding"; picks: number[]; value: unknown };

const draftArb: fc.Arbitrary<Draft> = fc.oneof(
  {
    weight: 2,
    // A few messages only, so repeating the current one (which is no change) happens often.
    arbitrary: fc
      .constantFrom("Queued", "Step 1", "Step 2", "")
      .map((statusMessage) => ev({ type: "status.update", statusMessage })),
  },
  {
    weight: 4,
    arbitrary: fc
      .uniqueArray(fc.constantFrom(...KEYS), { maxLength: 3 })
      .map((keys) => ev({ type: "input.request", requests: Object.fromEntries(keys.map((k) => [k, request(k)])) })),
  },
  {
    weight: 2,
    arbitrary: fc
      .dictionary(fc.constantFrom(...KEYS, "bogus", "confirm.4"), answerValue, { maxKeys: 3 })
      .map((responses) => ev({ type: "input.answer", responses })),
  },
  {
    weight: 5,
    arbitrary: fc
      .record({ picks: fc.array(fc.nat(3), { minLength: 1, maxLength: 3 }), value: answerValue })
      .map(({ picks, value }): Draft => ({ kind: "answerOutstanding", picks, value })),
  },
  { weight: 1, arbitrary: fc.constant(ev({ type: "work.done", result: { content: [] } })) },
  { weight: 1, arbitrary: fc.string({ maxLength: 8 }).map((message) => ev({ type: "work.toolError", message })) },
  {
    weight: 1,
    arbitrary: fc.integer({ min: -32768, max: -32000 }).map((code) =>
      ev({ type: "work.protocolError", error: { code, message: "boom" } }),
    ),
  },
  { weight: 1, arbitrary: fc.constant(ev({ type: "task.cancel" })) },
  { weight: 1, arbitrary: fc.constant(ev({ type: "task.expire" })) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 4 }).map((attempt) => ev({ type: "attempt.claimed", attempt })) },
  {
    weight: 1,
    arbitrary: fc.record({ attempt: fc.integer({ min: 1, max: 6 }), maxAttempts: fc.integer({ min: 1, max: 4 }) }).map((claim) => ev({ type: "attempt.claimed", ...claim })),
  },
  { weight: 1, arbitrary: fc.constant(ev({ type: "instance.lost" })) },
  {
    weight: 1,
    arbitrary: fc
      .record({ reason: fc.constantFrom("lost", "shutdown", "unserved", "refused" as const), retryable: fc.boolean(), maxAttempts: fc.integer({ min: 1, max: 4 }) })
      .map((loss) => ev({ type: "attempt.lost", ...loss })),
  },
);

function ev(event: Unstamped): Draft {
  return { kind: "event", event };
}

/** Turns drafts into events against a live actor, so answers can name keys that are actually outstanding. */
function replayDrafts(drafts: Draft[], gaps: number[]): void {
  const actor = createActor(taskMachine, { input: MODEL_INPUT }).start();
  const tracker: Tracker = { accepted: new Map() };
  let prev = actor.getSnapshot();
  let at = MODEL_INPUT.now;
  drafts.forEach((draft, i) => {
    at += gaps[i % gaps.length]!;
    let event: TaskEvent;
    if (draft.kind === "event") {
      event = { ...draft.event, at } as TaskEvent;
    } else {
      const outstanding = Object.keys(prev.context.inputRequests);
      const keys = draft.picks.map((n) => outstanding[n % Math.max(outstanding.length, 1)] ?? "none");
      event = { type: "input.answer", responses: Object.fromEntries(keys.map((k) => [k, draft.value])), at };
    }
    const next = advance(actor, prev, event);
    checkSnapshot(next, MODEL_INPUT);
    checkStep(prev, event, next, tracker);
    prev = next;
  });
  actor.stop();
}

describe("input rounds as the chart has them", () => {
  const at = MODEL_INPUT.now + 10;
  const ask = (...keys: string[]): TaskEvent => ({ type: "input.request", requests: Object.fromEntries(keys.map((k) => [k, request(k)])), at });
  const answer = (responses: Record<string, unknown>): TaskEvent => ({ type: "input.answer", responses, at });

  it("opens one round at a time, only while working, and names the round open by the keys it was asked with", () => {
    const [start, open, partly, done] = replay([ask("confirm", "name"), answer({ confirm: 1 }), answer({ name: 2 })]);
    expect([start, open, partly, done].map((s) => canOpenRound(s!))).toStrictEqual([true, false, false, true]);
    // The round open is the one asked with both keys, whether or not part of it is answered; no other.
    expect([isOpenRoundAskedWith(open!, ["name", "confirm"]), isOpenRoundAskedWith(partly!, ["confirm", "name"])]).toStrictEqual([true, true]);
    expect([isOpenRoundAskedWith(open!, ["confirm"]), isOpenRoundAskedWith(done!, ["confirm", "name"])]).toStrictEqual([false, false]);
    expect(roundAnswers(done!.context.answers, ["confirm", "name"])).toStrictEqual({ confirm: 1, name: 2 });
  });

  it("gives a repeated key a fresh wire key, and tells an answered round apart from the rounds kept", () => {
    const seen = replay([ask("confirm"), answer({ confirm: true }), ask("confirm"), answer({ "confirm.2": false })]);
    const first = seen[2]!;
    const second = seen.at(-1)!;
    expect([lastRoundWireKeys(first.context, 1), lastRoundWireKeys(second.context, 1)]).toStrictEqual([["confirm"], ["confirm.2"]]);
    // The second round, answered, is unkept while only the first is kept; kept itself, it is not.
    expect(isAnsweredRoundUnkept(second, ["confirm"], ["confirm"])).toBe(true);
    expect(isAnsweredRoundUnkept(second, ["confirm"], ["confirm", "confirm.2"])).toBe(false);
    expect(isAnsweredRoundUnkept(second, ["name"], [])).toBe(false);
    expect(roundAnswers(second.context.answers, ["confirm"])).toStrictEqual({ confirm: false });
  });
});

describe("random event sequences", () => {
  it("keep every invariant", () => {
    fc.assert(
      fc.property(
        fc.array(draftArb, { maxLength: 40 }),
        fc.array(fc.nat(5000), { minLength: 1, maxLength: 8 }),
        (drafts, gaps) => replayDrafts(drafts, gaps),
      ),
      { numRuns: 400 },
    );
  });
});
