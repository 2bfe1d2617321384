// The task engine, one per tasks plugin: it creates a task (its actor, its record, its run), makes every
// change through the write path chosen at mount (write-path.ts), records what the actor becomes, and tells
// those who follow a task and the listen streams. The run only reports (through `dispatch`); the engine
// observes the actor and the run observes its task: neither calls into the other. What keeps tasks going
// across processes (leases, claims, lapses, hand-offs, drains, executors) is the durability part, plugged
// in at mount as a `TaskDurability`: the engine calls it and imports nothing of it.
import { expiresAtOf, isExpiredAt, type TaskEvent } from "../../machines/task.machine.ts";
import type { RequestContext } from "../features/request-context.ts";
import type { McpTaskClosureOptions, McpTaskNamedRunOptions, McpTaskOptions, McpTaskRunDefinition } from "../features/task-api.ts";
import type { McpJsonRpcError } from "../protocol/errors.ts";
import type { ClientCapabilities, CreateTaskResult, JsonObject } from "../protocol/types.ts";
import { after, type MaybePromise } from "../utils/maybe-promise.ts";
import { AttemptRun, keepRunRecord } from "./attempt-run.ts";
import type { RunEngine } from "./run-view.ts";
import type { EventOf } from "./changes.ts";
import { isNotified, isTerminalStatus, toCreateTaskResult, type TaskSnapshot } from "./envelopes.ts";
import type { DrainOptions, DrainReport } from "./executor.ts";
import { untilIdle, type KeepAlive } from "./keep-alive.ts";
import { createListeners, type Listeners } from "./listeners.ts";
import { createLocalTasks, LocalTask, type LeaveReason, type LocalTasks } from "./local-tasks.ts";
import { expired } from "./logic/task-events.ts";
import { startTaskRun, type TaskHooks } from "./run-hooks.ts";
import { actorFromSnapshot, capRefusal, drainingRefusal, newTaskActor, runRecordOf, storeFailure, tellFollowers } from "./runtime-parts.ts";
import type { TaskDurability, TaskRuntime, TaskRuntimeOptions, TaskRuntimeStats, TaskSubscription } from "./runtime.ts";
import type { CreateOutcome, LiveTaskRecord, TaskFeed, TaskOrigin, TaskRecord, TaskRunRecord, TaskStore } from "./store.ts";
import { checkCreation } from "./task-bytes.ts";
import { TaskRun } from "./task-run.ts";
import { exclusiveWrites, sharedWrites, type WritePath } from "./write-path.ts";

export class TaskEngine implements TaskRuntime, RunEngine<LocalTask> {
  readonly store: TaskStore;
  readonly now: () => number;
  readonly local: LocalTasks;
  readonly listeners: Listeners;
  readonly maxTaskBytes: number;
  readonly writes: WritePath;
  readonly durability: TaskDurability;
  readonly claimTask: TaskDurability["claimTask"];
  readonly interrupt: TaskDurability["interrupt"];
  /** Told once no run is here, while a drain waits for that. */
  #idle: (() => void) | undefined;

  constructor(
    readonly options: TaskRuntimeOptions,
    plug: (engine: TaskEngine) => TaskDurability,
  ) {
    this.store = options.store;
    this.now = options.now;
    this.local = createLocalTasks({ now: options.now, inspect: options.inspect });
    this.listeners = createListeners();
    this.maxTaskBytes = options.maxTaskBytes;
    const parts = { store: this.store, local: this.local, listeners: this.listeners, now: this.now, find: this.find, fenced: this.fenced };
    this.writes = this.store.shared ? sharedWrites(parts) : exclusiveWrites(parts);
    this.durability = plug(this);
    this.claimTask = this.durability.claimTask;
    this.interrupt = this.durability.interrupt;
    const runs = options.runs.size > 0;
    this.store.connect({ now: this.now, limits: options.limits, bound: options.bound, feed: this.feed(), ...(runs && { runs }) });
    this.durability.connected();
  }

  get draining(): boolean {
    return this.durability.draining;
  }

  get stats(): TaskRuntimeStats {
    return {
      localTasks: this.local.size,
      listenedTasks: this.listeners.taskCount,
      listeners: this.listeners.listenerCount,
      timer: this.durability.ticking,
      casRetries: this.writes.changes?.casRetries() ?? 0,
    };
  }

  /** How the store tells this engine of changes, expiries, lost messages and released tasks. */
  private feed(): TaskFeed {
    const { local, listeners, durability } = this;
    return {
      wants: (id, version) => listeners.has(id) || local.behind(id, version),
      changed(change) {
        if (change.event) local.feed(change.id, change.version, change.event);
        listeners.changed(change.id, change.version, change.snapshot);
      },
      expired(id) {
        const task = local.get(id);
        if (task) local.expireHere(task);
      },
      missed: () => durability.missed(),
      ...(durability.released && { released: durability.released }),
    };
  }

  /** Applies an event the task's run produced; settles once the store has it. */
  dispatch(task: LocalTask, event: TaskEvent): MaybePromise<void> {
    return this.writes.own(task, event);
  }

  send(id: string, owner: string, eventOf: EventOf): MaybePromise<LocalTask | boolean> {
    return this.writes.client(id, owner, eventOf);
  }

  fail(id: string, message: string, data: JsonObject): Promise<void> {
    return this.writes.fail(id, message, data);
  }

  drain(options: DrainOptions): Promise<DrainReport> {
    return this.durability.drain(options);
  }

  /** Resolves once no run is here (a drain waits for that). */
  idle(): Promise<void> {
    return this.local.size ? new Promise<void>((resolve) => (this.#idle = resolve)) : Promise.resolve();
  }

  refusal(outcome: Exclude<CreateOutcome, "created">): McpJsonRpcError {
    return capRefusal(this.options.limits, outcome);
  }

  create(owner: string, ctx: RequestContext, task: McpTaskOptions, keepAlive: () => KeepAlive, origin?: TaskOrigin, hooks?: TaskHooks): MaybePromise<CreateTaskResult> {
    const { options, store, maxTaskBytes, durability } = this;
    // Before anything is made or stored: what the task would keep must fit.
    checkCreation(ctx, task.statusMessage, maxTaskBytes);
    // A run found by name keeps its record with the task (its name, version and input), for a later attempt.
    const named = typeof task.run === "function" ? undefined : (task as McpTaskNamedRunOptions).run;
    const record = named && runRecordOf(options.runs, task as McpTaskNamedRunOptions, store, ctx.clientCapabilities, ctx.tool?.def.name, maxTaskBytes);
    // A run found by name is stored released, not run here, when this instance drains (another instance
    // claims it), when it does not claim (something else delivers lost attempts), or when an executor takes
    // the attempt. A store no other instance reads cannot take a released task: creation is refused.
    const executor = record && options.executor;
    const released = !!record && (durability.draining || options.claims === false || !!executor);
    if (released && !durability.handsOff) throw drainingRefusal();
    const id = options.newId();
    const at = this.now();
    const actor = newTaskActor(options, id, at, task.statusMessage, record && (released ? 0 : 1));
    const snapshot = actor.getSnapshot() as TaskSnapshot;
    const expiresAt = expiresAtOf(snapshot.context);
    const begin = (outcome: CreateOutcome): MaybePromise<CreateTaskResult> => {
      if (outcome !== "created") throw this.refusal(outcome);
      ctx.becameTask();
      const handle = toCreateTaskResult(snapshot);
      if (executor) {
        const attempt = { taskId: id, name: record.name, version: record.version, input: record.input, attempt: 1, ...(origin && { origin }) };
        return durability.deliver(attempt).then(() => handle);
      }
      if (released) return handle;
      const entry = new LocalTask(id, owner, expiresAt, actor, snapshot);
      this.local.add(entry);
      entry.observer = this.observerOf(entry);
      const run = record ? this.attemptRun(entry, named!, record, 1, ctx.clientCapabilities, origin) : new TaskRun(entry.runView(this), ctx.clientCapabilities, this.now, origin);
      const work: McpTaskClosureOptions["run"] = record ? () => named!.run(run as AttemptRun, record.input) : (task as McpTaskClosureOptions).run;
      durability.started(entry);
      actor.subscribe(entry.observer);
      actor.start();
      const ran = startTaskRun(run, work, entry, ctx.tool, origin, hooks);
      // A run that ended in this call (and a store that recorded it at once) leaves nothing to keep alive.
      // Otherwise the request's waitUntil gets the work it set going (see `untilIdle`), so a platform that
      // ends work with the response (Workers) lets the run go on.
      if (ran) {
        const alive = keepAlive();
        alive.waitUntil(Promise.race([ran, untilIdle(entry, alive.holdParkedMs)]));
      }
      return handle;
    };
    // A shared store holds the task before the handle exists, so another instance finds it at once.
    let created: MaybePromise<CreateOutcome>;
    try {
      created = store.create(record ? { id, owner, expiresAt, snapshot, origin, run: record, ...(released && { released }) } : { id, owner, expiresAt, snapshot, origin });
    } catch (error) {
      throw storeFailure(error);
    }
    return typeof created === "string" ? begin(created) : created.then(begin, (error: unknown) => Promise.reject(storeFailure(error)));
  }

  /** Keeps a named run's record (its checkpoint, its answered rounds) with the task, fenced by the attempt. */
  keepRun(task: LocalTask, run: AttemptRun, record: TaskRunRecord): Promise<void> {
    return keepRunRecord(this.store, task, run, record, () => this.fenced(task));
  }

  /**
   * Runs attempt `attempt` of a task read from the store (claimed here) from its stored state: `prepare`
   * sees the task here before its actor starts. As the first attempt, its result is checked against the
   * creating tool's outputSchema, inside the plugins' wrapTaskRun.
   */
  runAttemptHere(id: string, owner: string | null, task: LiveTaskRecord, record: TaskRunRecord, run: McpTaskRunDefinition, attempt: number, prepare?: (entry: LocalTask) => void): LocalTask {
    const actor = actorFromSnapshot(this.options, id, task.snapshot);
    const entry = new LocalTask(id, owner, task.expiresAt, actor, task.snapshot);
    entry.applied = task.version;
    this.local.add(entry);
    entry.observer = this.observerOf(entry);
    const attemptRun = this.attemptRun(entry, run, record, attempt, record.client ?? {}, task.origin);
    prepare?.(entry);
    this.durability.started(entry);
    actor.subscribe(entry.observer);
    actor.start();
    this.options.mounted.start(attemptRun, () => run.run(attemptRun, record.input), entry, record, task.origin);
    return entry;
  }

  /** Attempt `attempt` of a run found by name, on a task that runs here from now on. */
  private attemptRun(entry: LocalTask, run: McpTaskRunDefinition, record: TaskRunRecord, attempt: number, caps: ClientCapabilities, origin: TaskOrigin | undefined): AttemptRun {
    entry.fence = { attempt };
    entry.maxAttempts = run.maxAttempts;
    return new AttemptRun(entry.runView(this), caps, this.now, origin, attempt, record);
  }

  /** The store refused a write of this attempt as fenced (another attempt holds the task): it stops here. */
  readonly fenced = (task: LocalTask): void => this.leave(task, "fenced");

  /**
   * The task stops running here without ending (fenced, or handed off): its actor stops, whoever waits on
   * it here (the creating request's waitUntil, a drain, a plugin's `onLeave`) is told why, and then its
   * run's signal aborts. Nothing happens when it was not running here (it ended, or left already): a task
   * leaves at most once, and never after it ended.
   */
  leave(task: LocalTask, why: LeaveReason): void {
    if (this.local.get(task.id) !== task) return;
    this.endHere(task);
    const leaving = task.leaving;
    task.leaving = undefined;
    if (leaving) {
      for (const told of leaving) {
        try {
          told(why);
        } catch {
          // A listener's failure (a plugin's) is its own: the others are told, and the run still stops.
        }
      }
    }
    task.stopped?.(why);
  }

  readonly get = (id: string, owner: string): MaybePromise<TaskRecord | undefined> => this.find(id, owner);

  subscribe(id: string, owner: string, listener: (snapshot: TaskSnapshot) => void): MaybePromise<TaskSubscription | undefined> {
    return after(this.find(id, owner, true), (task) => {
      if (!task) return undefined;
      if (task.json !== undefined) return { task, off: () => {} };
      const off = this.listeners.add(id, owner, task.snapshot, task.version, listener);
      this.durability.listening();
      return { task, off };
    });
  }

  expire(id: string): boolean {
    const task = this.local.get(id);
    if (!task?.actor) return this.listeners.expire(id, this.now());
    if (!isExpiredAt(task.snapshot.context, this.now())) return false;
    this.local.expireHere(task);
    return true;
  }

  /**
   * The task if it exists, is not expired and belongs to `owner`, as judged when read: a live one past its
   * ttl is ended through the chart, and one whose holder is not alive is judged by the durability part.
   */
  readonly find = (id: string, owner: string, listen = false): MaybePromise<TaskRecord | undefined> => {
    return after(this.store.read(id, owner, listen), (task) => {
      if (!task) return undefined;
      const at = this.now();
      // A finished task is kept until its expiry, and then the store may drop it.
      if (task.json !== undefined) return task.expiresAt <= at ? undefined : task;
      if (isExpiredAt(task.snapshot.context, at)) return after(this.writes.record(id, owner, task, expired(at)), () => undefined);
      return this.durability.judgeLive ? this.durability.judgeLive(id, owner, task) : task;
    });
  };

  /**
   * The engine's observer of a task's actor, made outside `create`: a closure made there would hold the whole
   * creating call (its request among it) for as long as the task lives.
   */
  private observerOf(task: LocalTask): (snapshot: TaskSnapshot) => void {
    return (snapshot) => this.observe(task, snapshot);
  }

  /** A snapshot of a task's actor: recorded, told to the run and the task's followers; a final one ends the task here. */
  private observe(task: LocalTask, snapshot: TaskSnapshot): void {
    const previous = task.snapshot;
    // The actor also reports an event that changed nothing, with the very same snapshot.
    if (snapshot === previous) return;
    task.snapshot = snapshot;
    const final = isTerminalStatus(snapshot.value);
    this.writes.recorded(task, snapshot, isNotified(previous, snapshot), final);
    if (snapshot.value !== previous.value) tellFollowers(task, snapshot);
    if (final) this.endHere(task);
    task.watch?.(snapshot);
  }

  /** The task no longer runs here: its actor stops, and a drain waiting for the runs here hears of it. */
  private endHere(task: LocalTask): void {
    this.local.remove(task);
    if (this.#idle && !this.local.size) this.#idle();
    const actor = task.actor;
    task.actor = undefined;
    task.followers = undefined;
    actor?.stop();
  }
}
