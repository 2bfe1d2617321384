/**
 * The lifecycle of one MCP task (io.modelcontextprotocol/tasks).
 *
 * This chart is the only record of a task's status, outstanding input requests, answers, result and error.
 * It is pure: the task id and creation time arrive through `input`, every later time arrives on the event
 * (`at`), and nothing here touches a clock, a random source or the network. That keeps it replayable, lets
 * `xstate/graph` walk it, and keeps the context JSON-serialisable for a persisted snapshot.
 *
 * State names are the wire spellings of `status`, so the wire layer can map them one to one.
 */
import { assign, setup } from "xstate";

/** One request for client input, as it appears under `inputRequests` on the wire. */
export interface InputRequest {
  method: string;
  params?: Record<string, unknown>;
}

/** A JSON-RPC error object (plain data, never an `Error`), carried by a `failed` task. */
export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/** What the store passes to `createActor(taskMachine, { input })`. */
export interface TaskInput {
  taskId: string;
  /** Creation time, epoch ms; becomes both `createdAt` and `lastUpdatedAt`. */
  now: number;
  /** Lifetime from `createdAt`; `null` for unlimited. */
  ttlMs: number | null;
  pollIntervalMs: number;
  statusMessage?: string;
  /** For a run found by name: 1 when the creating instance holds its first attempt, 0 when it is left for a claim. */
  attempt?: number;
}

/** Everything the wire needs to describe a task. JSON-serialisable by construction. */
export interface TaskContext {
  taskId: string;
  statusMessage?: string;
  createdAt: number;
  /** Time of the last event that changed something. */
  lastUpdatedAt: number;
  ttlMs: number | null;
  pollIntervalMs: number;
  /** Outstanding requests, by wire key. Non-empty exactly when the task is `input_required`. */
  inputRequests: Record<string, InputRequest>;
  /** Wire key → the key the tool asked with, for the outstanding requests. */
  inputKeys: Record<string, string>;
  /** Every wire key ever issued in this task, answered or not; a wire key is never reused. */
  issuedKeys: string[];
  /** Answers of the current (or last) input round, by the key the tool asked with. */
  answers: Record<string, unknown>;
  /** The tool's result (a CallToolResult), once `completed`. */
  result?: Record<string, unknown>;
  /** The protocol error, once `failed`. */
  error?: JsonRpcErrorObject;
  /** For a run found by name: the attempt that holds (or last held) the task, 1-based. */
  attempt?: number;
  /** True while no instance holds the task: its last attempt was lost and the next one is not claimed yet. */
  released?: boolean;
  /**
   * For a run found by name: how many of its attempts a drain handed off. They count in `attempt` but not
   * against `maxAttempts` (see `attemptsSpent`). Absent (a snapshot persisted before it was kept) reads as 0.
   */
  handedOff?: number;
  /**
   * What ended the task, once it ended: the chart's own record of it, so that nothing outside the chart
   * reads an error's code or message to learn whether the task expired, was drained or lost.
   */
  endedBy?: TaskEnding;
}

/** What ended a task: its run's outcome, a client's cancel, its ttl, or the loss of its attempt (and why). */
export type TaskEnding = "result" | "toolError" | "protocolError" | "cancelled" | "expired" | AttemptLossReason;

/** Why an attempt lost its hold on a task: its instance was lost, shut down, nobody serves its run, or its record was refused. */
export type AttemptLossReason = "lost" | "shutdown" | "unserved" | "refused";

/** Every event the chart understands. `at` is epoch ms and becomes `lastUpdatedAt` when the event changes something. */
export type TaskEvent =
  | { type: "status.update"; statusMessage: string; at: number }
  | { type: "input.request"; requests: Record<string, InputRequest>; at: number }
  | { type: "input.answer"; responses: Record<string, unknown>; at: number }
  | { type: "work.done"; result: Record<string, unknown>; at: number }
  | { type: "work.toolError"; message: string; at: number }
  | { type: "work.protocolError"; error: JsonRpcErrorObject; at: number }
  | { type: "task.cancel"; at: number }
  | { type: "task.expire"; at: number }
  | { type: "instance.lost"; at: number }
  | {
      type: "attempt.claimed";
      attempt: number;
      /**
       * The run's `maxAttempts`. With it, the claim is judged whole: a previous attempt that did not hand the
       * task off was lost (and counts), and a claim past the budget fails the task instead of taking it.
       * Without it, the claim only takes the task (its holder's loss was sent on its own).
       */
      maxAttempts?: number;
      at: number;
    }
  | { type: "attempt.lost"; reason: AttemptLossReason; retryable: boolean; maxAttempts: number; at: number };

/** The chart's state values; identical to the wire `status`. */
export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

type EventOf<T extends TaskEvent["type"]> = Extract<TaskEvent, { type: T }>;

/**
 * The attempts of a run found by name that count against its `maxAttempts`: those lost (the instance
 * crashed, its lease lapsed, it was fenced) or failed, up to `attempt` (the latest claimed, by default the
 * one the chart knows). An attempt a drain handed off does not count: a hand-off only follows a deliberate
 * drain, so a rolling restart through any number of instances spends none.
 */
export function attemptsSpent(context: Pick<TaskContext, "attempt" | "handedOff">, attempt: number = context.attempt ?? 1): number {
  return attempt - (context.handedOff ?? 0);
}

/**
 * Whether the task may have a next attempt after losing the current one for `reason`. A drain's hand-off
 * spends nothing, so it is refused only to a run that allows a single attempt (never run again, whatever
 * the cause); any other loss is counted first.
 */
export function attemptLeftAfter(context: Pick<TaskContext, "attempt" | "handedOff">, reason: AttemptLossReason, maxAttempts: number): boolean {
  return reason === "shutdown" ? maxAttempts > 1 : attemptsSpent(context) < maxAttempts;
}

/** When the task's ttl runs out, in epoch ms (Infinity without one): from then on the task is expired. */
export function expiresAtOf(context: Pick<TaskContext, "createdAt" | "ttlMs">): number {
  return context.ttlMs === null ? Infinity : context.createdAt + context.ttlMs;
}

/**
 * Whether a live task is past its ttl at `at`: the chart's one judgement of expiry. Whoever finds it so (a
 * read, a timer) sends `task.expire`, which fails the task.
 */
export function isExpiredAt(context: Pick<TaskContext, "createdAt" | "ttlMs">, at: number): boolean {
  return at >= expiresAtOf(context);
}

const EXPIRED: JsonRpcErrorObject = { code: -32603, message: "Task expired before it finished" };

/** The error a task fails with when its ttl runs out before it finished. */
export const TASK_EXPIRED_ERROR: Readonly<JsonRpcErrorObject> = EXPIRED;

const LOSS_MESSAGES: Record<AttemptLossReason, string> = {
  lost: "The server instance running this task was lost",
  shutdown: "The server instance running this task shut down",
  unserved: "No server instance serves this task's run",
  refused: "This task's kept run record failed authentication and was refused",
};

// The ways out of a live task are the same from `working` and from `input_required`. They are listed once
// and spread into both states rather than put on the root, because a root handler would still match after
// the chart has reached a final state, and final states must accept nothing.
const endings = {
  "work.done": {
    target: "completed",
    actions: {
      type: "storeResult",
      params: ({ event }: { event: EventOf<"work.done"> }) => ({ result: event.result, endedBy: "result" as const, at: event.at }),
    },
  },
  // A tool that ran and reported a problem is a completed task with an `isError` result, not a failed one.
  "work.toolError": {
    target: "completed",
    actions: {
      type: "storeResult",
      params: ({ event }: { event: EventOf<"work.toolError"> }) => ({
        result: { content: [{ type: "text", text: event.message }], isError: true },
        endedBy: "toolError" as const,
        at: event.at,
      }),
    },
  },
  // A failed task says why: the error's message replaces whatever progress message it had.
  "work.protocolError": {
    target: "failed",
    actions: {
      type: "storeError",
      params: ({ event }: { event: EventOf<"work.protocolError"> }) => ({
        error: event.error,
        statusMessage: event.error.message,
        endedBy: "protocolError" as const,
        at: event.at,
      }),
    },
  },
  "task.cancel": {
    target: "cancelled",
    actions: { type: "cancelTask", params: ({ event }: { event: EventOf<"task.cancel"> }) => ({ at: event.at }) },
  },
  "task.expire": {
    target: "failed",
    actions: {
      type: "storeError",
      params: ({ event }: { event: EventOf<"task.expire"> }) => ({
        error: { ...EXPIRED },
        statusMessage: "Expired",
        endedBy: "expired" as const,
        at: event.at,
      }),
    },
  },
  // The instance running a closure's task is gone (its lease lapsed): the run cannot go on anywhere else.
  // A closure has no attempts, so its error says only that (no attempt count).
  "instance.lost": {
    target: "failed",
    actions: {
      type: "storeError",
      params: ({ event }: { event: EventOf<"instance.lost"> }) => ({
        error: { code: -32603, message: LOSS_MESSAGES.lost },
        statusMessage: LOSS_MESSAGES.lost,
        endedBy: "lost" as const,
        at: event.at,
      }),
    },
  },
} as const;


// An instance claiming a task, or losing it, is the same from `working` and from `input_required`: the
// status stays (an open round keeps its wire keys) while attempts are left, and the task fails once none is.
const attempts = {
  "attempt.claimed": [
    // A claim judged against the run's budget that leaves none: the attempts lost before it (the previous
    // holder's, when it did not hand the task off, and any claimed whose loss never reached the chart) spent it.
    {
      guard: {
        type: "claimPastBudget",
        params: ({ event }: { event: EventOf<"attempt.claimed"> }) => ({ attempt: event.attempt, maxAttempts: event.maxAttempts }),
      },
      target: "failed",
      actions: {
        type: "storeError",
        params: ({ context, event }: { context: TaskContext; event: EventOf<"attempt.claimed"> }) => ({
          error: { code: -32603, message: LOSS_MESSAGES.lost, data: lossData(context, "lost") },
          statusMessage: LOSS_MESSAGES.lost,
          endedBy: "lost" as const,
          // Past the budget with the holder's loss counted, the task was released before it failed.
          released: context.released === true || !holderLossSpendsLast(context, event.maxAttempts!),
          at: event.at,
        }),
      },
    },
    {
      guard: { type: "newAttempt", params: ({ event }: { event: EventOf<"attempt.claimed"> }) => ({ attempt: event.attempt }) },
      actions: { type: "claimAttempt", params: ({ event }: { event: EventOf<"attempt.claimed"> }) => ({ attempt: event.attempt, at: event.at }) },
    },
  ],
  "attempt.lost": [
    // A task already released (told twice of one loss) stays as it is; one that may not be retried fails.
    {
      guard: { type: "releasedWithAttemptsLeft", params: ({ event }: { event: EventOf<"attempt.lost"> }) => ({ retryable: event.retryable, maxAttempts: event.maxAttempts }) },
    },
    {
      guard: {
        type: "attemptsLeft",
        params: ({ event }: { event: EventOf<"attempt.lost"> }) => ({ reason: event.reason, retryable: event.retryable, maxAttempts: event.maxAttempts }),
      },
      actions: { type: "releaseAttempt", params: ({ event }: { event: EventOf<"attempt.lost"> }) => ({ reason: event.reason, at: event.at }) },
    },
    {
      target: "failed",
      actions: {
        type: "storeError",
        params: ({ context, event }: { context: TaskContext; event: EventOf<"attempt.lost"> }) => ({
          error: { code: -32603, message: LOSS_MESSAGES[event.reason], data: lossData(context, event.reason) },
          statusMessage: LOSS_MESSAGES[event.reason],
          endedBy: event.reason,
          at: event.at,
        }),
      },
    },
  ],
} as const;

// Repeating the current message is not a change, so it must not move `lastUpdatedAt`.
const statusUpdate = {
  guard: {
    type: "changesStatusMessage",
    params: ({ event }: { event: EventOf<"status.update"> }) => ({ statusMessage: event.statusMessage }),
  },
  actions: {
    type: "setStatusMessage",
    params: ({ event }: { event: EventOf<"status.update"> }) => ({ statusMessage: event.statusMessage, at: event.at }),
  },
} as const;

/**
 * The task chart. The store creates one actor per task and only ever sends it events.
 *
 * @example
 * const actor = createActor(taskMachine, {
 *   input: { taskId, now: Date.now(), ttlMs: 600_000, pollIntervalMs: 1000, statusMessage: "Queued" },
 * }).start();
 * actor.send({ type: "status.update", statusMessage: "Frame 1/100", at: Date.now() });
 */
export const taskMachine = setup({
  types: {} as { context: TaskContext; events: TaskEvent; input: TaskInput },
  actions: {
    setStatusMessage: assign((_, p: { statusMessage: string; at: number }) => ({
      statusMessage: p.statusMessage,
      lastUpdatedAt: p.at,
    })),
    openInputRound: assign(({ context }, p: { requests: Record<string, InputRequest>; at: number }) => {
      const entries = Object.entries(p.requests);
      const wireKeys = _freshWireKeys(
        entries.map(([userKey]) => userKey),
        context.issuedKeys,
      );
      return {
        inputRequests: Object.fromEntries(entries.map(([, request], i) => [wireKeys[i], request])),
        inputKeys: Object.fromEntries(entries.map(([userKey], i) => [wireKeys[i], userKey])),
        issuedKeys: [...context.issuedKeys, ...wireKeys],
        // A new round starts with no answers, so the tool never sees a previous round's answer under a reused name.
        answers: {},
        lastUpdatedAt: p.at,
      };
    }),
    acceptAnswers: assign(({ context }, p: { responses: Record<string, unknown>; at: number }) => {
      const outstanding = Object.keys(context.inputRequests);
      const answered = outstanding.filter((key) => Object.hasOwn(p.responses, key));
      const left = outstanding.filter((key) => !Object.hasOwn(p.responses, key));
      return {
        inputRequests: Object.fromEntries(left.map((key) => [key, context.inputRequests[key]])),
        inputKeys: Object.fromEntries(left.map((key) => [key, context.inputKeys[key]])),
        answers: {
          ...context.answers,
          ...Object.fromEntries(answered.map((key) => [context.inputKeys[key], p.responses[key]])),
        },
        lastUpdatedAt: p.at,
      };
    }),
    storeResult: assign((_, p: { result: Record<string, unknown>; endedBy: TaskEnding; at: number }) => ({
      result: p.result,
      endedBy: p.endedBy,
      inputRequests: {},
      inputKeys: {},
      lastUpdatedAt: p.at,
    })),
    storeError: assign((_, p: { error: JsonRpcErrorObject; statusMessage?: string; endedBy: TaskEnding; released?: boolean; at: number }) => ({
      error: p.error,
      ...(p.released !== undefined && { released: p.released }),
      endedBy: p.endedBy,
      ...(p.statusMessage !== undefined && { statusMessage: p.statusMessage }),
      inputRequests: {},
      inputKeys: {},
      lastUpdatedAt: p.at,
    })),
    cancelTask: assign((_, p: { at: number }) => ({ inputRequests: {}, inputKeys: {}, endedBy: "cancelled" as const, lastUpdatedAt: p.at })),
    claimAttempt: assign((_, p: { attempt: number; at: number }) => ({ attempt: p.attempt, released: false, lastUpdatedAt: p.at })),
    // A drain's hand-off is counted apart: it is an attempt made, not one spent.
    releaseAttempt: assign(({ context }, p: { reason: AttemptLossReason; at: number }) => ({
      released: true,
      ...(p.reason === "shutdown" && { handedOff: (context.handedOff ?? 0) + 1 }),
      lastUpdatedAt: p.at,
    })),
  },
  guards: {
    changesStatusMessage: ({ context }, p: { statusMessage: string }) => p.statusMessage !== context.statusMessage,
    // Parking a task on zero requests would leave it waiting for an answer that can never come.
    hasRequests: (_, p: { requests: Record<string, InputRequest> }) => Object.keys(p.requests).length > 0,
    answersSome: ({ context }, p: { responses: Record<string, unknown> }) =>
      Object.keys(context.inputRequests).some((key) => Object.hasOwn(p.responses, key)),
    answersAll: ({ context }, p: { responses: Record<string, unknown> }) =>
      Object.keys(context.inputRequests).every((key) => Object.hasOwn(p.responses, key)),
    newAttempt: ({ context }, p: { attempt: number }) => p.attempt !== context.attempt || context.released !== false,
    // Released, the last attempt is counted already (spent, or handed off), whatever this loss says.
    releasedWithAttemptsLeft: ({ context }, p: { retryable: boolean; maxAttempts: number }) =>
      context.released === true && p.retryable && attemptsSpent(context) < p.maxAttempts,
    attemptsLeft: ({ context }, p: { reason: AttemptLossReason; retryable: boolean; maxAttempts: number }) =>
      p.retryable && attemptLeftAfter(context, p.reason, p.maxAttempts),
    claimPastBudget: ({ context }, p: { attempt: number; maxAttempts: number | undefined }) => claimPastBudget(context, p.attempt, p.maxAttempts),
  },
}).createMachine({
  id: "task",
  context: ({ input }) => ({
    taskId: input.taskId,
    ...(input.statusMessage !== undefined && { statusMessage: input.statusMessage }),
    createdAt: input.now,
    lastUpdatedAt: input.now,
    ttlMs: input.ttlMs,
    pollIntervalMs: input.pollIntervalMs,
    inputRequests: {},
    inputKeys: {},
    issuedKeys: [],
    answers: {},
    // Attempt 0: created for another instance to claim (nobody holds it yet).
    ...(input.attempt !== undefined && { attempt: input.attempt, released: input.attempt === 0 }),
  }),
  initial: "working",
  states: {
    working: {
      description: "The tool is running.",
      on: {
        "status.update": statusUpdate,
        "input.request": {
          guard: { type: "hasRequests", params: ({ event }) => ({ requests: event.requests }) },
          target: "input_required",
          actions: { type: "openInputRound", params: ({ event }) => ({ requests: event.requests, at: event.at }) },
        },
        ...attempts,
        ...endings,
      },
    },
    input_required: {
      description: "Parked until the client has answered every outstanding request through tasks/update.",
      on: {
        "status.update": statusUpdate,
        // Keys that are not outstanding (never issued, already answered) are ignored; an answer that names
        // none of them changes nothing, not even `lastUpdatedAt`.
        "input.answer": [
          {
            guard: { type: "answersAll", params: ({ event }) => ({ responses: event.responses }) },
            target: "working",
            actions: { type: "acceptAnswers", params: ({ event }) => ({ responses: event.responses, at: event.at }) },
          },
          {
            guard: { type: "answersSome", params: ({ event }) => ({ responses: event.responses }) },
            actions: { type: "acceptAnswers", params: ({ event }) => ({ responses: event.responses, at: event.at }) },
          },
        ],
        ...attempts,
        ...endings,
      },
    },
    completed: { type: "final", description: "Finished with a result (possibly `isError: true`)." },
    failed: { type: "final", description: "Ended by a protocol error or by expiry." },
    cancelled: { type: "final", description: "Cancelled through tasks/cancel." },
  },
});

/** A task's state as the selectors below read it: a live actor's snapshot or a stored one. */
export interface TaskState {
  value: TaskStatus;
  context: TaskContext;
}

// Input rounds, as the chart has them: what a run asking for input may do now is read from the chart's own
// state, so the run keeps no second idea of which round is open, which keys were issued, or which answered.

/** Whether a new input round may open now: one round at a time, and only while the task is working. */
export function canOpenRound(state: TaskState): boolean {
  return state.value === "working";
}

/**
 * Whether the round open now was asked with exactly `keys` (the keys the run asked with; those answered
 * already count): a later attempt asking what its previous attempt asked takes that round over.
 */
export function isOpenRoundAskedWith(state: TaskState, keys: readonly string[]): boolean {
  const { inputKeys, answers } = state.context;
  return state.value === "input_required" && _sameKeys([...Object.keys(answers), ...Object.values(inputKeys)], keys);
}

/**
 * Whether the last round was asked with `keys`, is answered, and is none of the rounds whose wire keys are
 * `keptWire` (the rounds a run's record kept): answered after the attempt that asked it was lost.
 */
export function isAnsweredRoundUnkept(state: TaskState, keys: readonly string[], keptWire: readonly string[]): boolean {
  const { answers, issuedKeys } = state.context;
  if (state.value !== "working" || !keys.length || issuedKeys.length < keys.length || !_sameKeys(Object.keys(answers), keys)) return false;
  return !lastRoundWireKeys(state.context, keys.length).some((key) => keptWire.includes(key));
}

/** The wire keys the chart issued for the last round, of `count` keys. */
export function lastRoundWireKeys(context: TaskContext, count: number): string[] {
  return context.issuedKeys.slice(-count);
}

/** The answers of a round, by the keys it asked with (`answers` as the chart keeps them, by those keys). */
export function roundAnswers(answers: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((key) => Object.hasOwn(answers, key)).map((key) => [key, answers[key]]));
}

// --- Internal ---

/**
 * Whether claiming attempt `attempt` leaves the run no attempt: a holder that did not hand the task off
 * (not released) was lost, which spends one (and with a single attempt allowed, the only one); and every
 * attempt before `attempt`, less those a drain handed off, counts, so a claim whose attempt never reached
 * the chart (its instance was lost at once) still spends one.
 */
function claimPastBudget(context: TaskContext, attempt: number, maxAttempts: number | undefined): boolean {
  if (maxAttempts === undefined) return false;
  if (context.released !== true && holderLossSpendsLast(context, maxAttempts)) return true;
  return attemptsSpent(context, attempt) > maxAttempts;
}

/** Whether the loss of the attempt holding the task (not released) leaves its run no attempt. */
function holderLossSpendsLast(context: TaskContext, maxAttempts: number): boolean {
  return !(maxAttempts > 1 && attemptsSpent(context) < maxAttempts);
}

/** A lost task's error data: the attempts made, why the last one ended, and how many a drain handed off (when any). */
function lossData(context: TaskContext, reason: AttemptLossReason): { attempts: number; reason: AttemptLossReason; handedOff?: number } {
  const handedOff = context.handedOff ?? 0;
  return { attempts: context.attempt ?? 1, reason, ...(handedOff > 0 && { handedOff }) };
}

/**
 * Wire keys for one batch of user keys, in the same order. A user key keeps its own name unless that name was
 * issued before in this task; otherwise it gets `key.2`, `key.3`, … , the first name not issued before and not
 * taken by another key of the same batch. Keys that keep their own name are settled first, so a user key such
 * as `confirm.2` is never pushed aside by a renamed `confirm`.
 */
function _freshWireKeys(userKeys: string[], issued: string[]): string[] {
  const taken = new Set(issued);
  const wire = userKeys.map((key) => (taken.has(key) ? undefined : key));
  for (const key of wire) if (key !== undefined) taken.add(key);
  return userKeys.map((key, i) => {
    const own = wire[i];
    if (own !== undefined) return own;
    let n = 2;
    while (taken.has(`${key}.${n}`)) n++;
    const fresh = `${key}.${n}`;
    taken.add(fresh);
    return fresh;
  });
}

/** The same keys, in any order. */
function _sameKeys(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((key) => b.includes(key));
}
