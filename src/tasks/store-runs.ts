// The store contract's part for runs found by name (`defineTaskRun`): the record kept with such a task,
// the fence on its attempts' writes, and what claims, hand-offs and loads answer. store.ts uses these in
// the contract itself and exports them with it.
import type { JsonObject } from "../protocol/types.ts";

/**
 * What a run found by name needs on another instance: kept with its task, given back by `loadRun`. A store
 * that keeps it outside this process seals it (it holds the run's input and the user's answers).
 */
export interface TaskRunRecord {
  /** The run's name, as `defineTaskRun` gave it: an instance claims only runs it serves. */
  readonly name: string;
  /** The run's version: an instance claims only attempts of a version it serves. */
  readonly version: number;
  /** The run's input, as the tool call gave it: JSON data. */
  readonly input: unknown;
  /** What the last attempt saved with `task.saveCheckpoint` (JSON data); the next attempt starts with it. */
  readonly checkpoint?: unknown;
  /** Answers to input rounds by round key: a later attempt asking a round answered already gets them back. */
  readonly answers?: JsonObject;
  /** The creating client's capabilities that asking for input depends on (elicitation, sampling, roots). */
  readonly client?: JsonObject;
  /** The task's owner key, for the instance that claims it (a store may keep only a hash beside the task). */
  readonly owner?: string;
  /**
   * The name of the tool whose call created the task: every attempt's result is checked against that
   * tool's `outputSchema`, and plugins' `wrapTaskRun` see that tool. Absent on records of earlier versions.
   */
  readonly tool?: string;
}

/**
 * Which attempt a run's own write comes from. The store refuses the write (`"fenced"`) unless that attempt
 * still holds the task: it was claimed last, was not released, and its instance's lease holds. Attempt
 * numbers are given out by `claim`, one more each time, so the number alone names the holder.
 */
export interface TaskFence {
  readonly attempt: number;
}

/** Who holds a task with a run record, as `read` tells it. */
export interface TaskHold {
  /** The run's name and version (not sealed: they decide who may claim it). */
  readonly name: string;
  readonly version: number;
  /** The attempt that holds the task or held it last; 0 for a task created released and not claimed yet. */
  readonly attempt: number;
  /**
   * True while no attempt holds it (created released, or released by `release`): the next claim wins.
   * A holder whose lease lapsed reads as `workerAlive: false` instead, and is claimable too.
   */
  readonly released: boolean;
  /** Epoch ms since when the task waits for a claim (released, or its holder's lease lapsed); absent while held. */
  readonly waitingSince?: number;
}

/** What `claim` did. */
export type ClaimOutcome =
  /** This instance holds the task's next attempt, numbered `attempt`; its writes carry `{ attempt }`. */
  | { readonly outcome: "claimed"; readonly attempt: number }
  /** An attempt holds it and its instance's lease holds: try again in `retryInMs` at the earliest. */
  | { readonly outcome: "taken"; readonly retryInMs: number }
  /** Unknown, expired, finished (a cancel while released ends here), or a task without a run record. */
  | { readonly outcome: "gone" };

/** What `release` and `saveRun` did (as for `write`; they have no version to conflict on). */
export type HoldOutcome = "written" | "fenced" | "gone";

/** What `loadRun` found. */
export type LoadedRun =
  | { readonly outcome: "loaded"; readonly record: TaskRunRecord }
  /** The record failed its store's check (tampered, or sealed under another secret): never run it. */
  | { readonly outcome: "refused"; readonly reason: string }
  /** Unknown, expired, finished, or a task without a run record. */
  | { readonly outcome: "gone" };

/** A task waiting for a claim, as `claimable` lists it. */
export interface ClaimableTask {
  readonly id: string;
  readonly name: string;
  readonly version: number;
  /** The attempt that held it last (0: none yet); the claim makes the next one. */
  readonly attempt: number;
  /** Epoch ms since when it waits (released, or its holder's lease lapsed). */
  readonly waitingSince: number;
}
