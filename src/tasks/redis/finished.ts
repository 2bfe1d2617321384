// A finished task's stored form: one string, "<version> <owner> [~<origin JSON>\n]<tasks/get JSON>",
// which Redis keeps in a single allocation (a hash would become a hashtable, its JSON being longer than
// the 64 bytes a compact hash allows per value). The JSON's opening up to the task id is the same for
// every task and the id is in the key, so the string keeps only the rest.
import type { TaskStatus } from "../../../machines/task.machine.ts";
import { fullGetTaskResultJson } from "../kept-json.ts";
import type { FinalStatus, TaskOrigin } from "../store.ts";

/** What a reader judges a finished task by, fixed once it finished. */
export interface FinishedFacts {
  readonly expiresAt: number;
  readonly status: FinalStatus;
}

/** A finished task as read back. */
export interface FinishedRead {
  readonly owner: string;
  readonly version: number;
  readonly json: string;
  readonly facts: FinishedFacts;
  readonly origin: TaskOrigin | undefined;
}

/** A finished task's string, back as its version, owner, origin and full tasks/get JSON. */
export function parseFinished(id: string, raw: string, facts?: FinishedFacts): FinishedRead {
  const a = raw.indexOf(" ");
  const b = raw.indexOf(" ", a + 1);
  let rest = raw.slice(b + 1);
  let origin: TaskOrigin | undefined;
  if (rest.startsWith("~")) {
    const end = rest.indexOf("\n");
    origin = JSON.parse(rest.slice(1, end)) as TaskOrigin;
    rest = rest.slice(end + 1);
  }
  const json = fullGetTaskResultJson(id, rest);
  facts ??= { expiresAt: expiryOfFinalJson(json), status: statusOfFinalJson(json) };
  return { version: Number(raw.slice(0, a)), owner: raw.slice(a + 1, b), json, facts, origin };
}

/**
 * Tasks this instance saw finished (it wrote their final state, or read it), with their facts. A
 * finished task's key stays a string until it expires, so reading one of them again needs no script
 * (a plain GET) and no parsing of its JSON for its expiry and status. Bounded; the oldest are forgotten
 * first (a forgotten one is read by the script again, which still works).
 */
export class FinishedTasks {
  readonly #facts = new Map<string, FinishedFacts>();
  // The ids in the order remembered, a ring: the oldest is found by its place, not by walking the Map
  // from its start (which steps over every entry deleted before, until the Map is next rebuilt).
  readonly #order: string[] = [];
  #next = 0;
  constructor(readonly max: number) {}
  get(id: string): FinishedFacts | undefined {
    return this.#facts.get(id);
  }
  remember(id: string, facts: FinishedFacts): void {
    if (this.#facts.has(id)) return;
    if (this.#order.length < this.max) this.#order.push(id);
    else {
      // An id forgotten and remembered again sits in the ring twice: its older place may drop it early.
      this.#facts.delete(this.#order[this.#next]!);
      this.#order[this.#next] = id;
      this.#next = (this.#next + 1) % this.max;
    }
    this.#facts.set(id, facts);
  }
  forget(id: string): void {
    this.#facts.delete(id);
  }
  get size(): number {
    return this.#facts.size;
  }
}

// --- Internal ---

/** The status a finished task's JSON records (it comes second, right after the id). */
function statusOfFinalJson(json: string): FinalStatus {
  return (/"status":"([a-z_]+)"/.exec(json)?.[1] ?? "failed") as TaskStatus as FinalStatus;
}

/** When a finished task's JSON says it expires (`createdAt + ttlMs`), or Infinity for an unlimited one. */
function expiryOfFinalJson(json: string): number {
  const ttl = /"ttlMs":(\d+)/.exec(json);
  const created = /"createdAt":"([^"]+)"/.exec(json);
  return ttl && created ? Date.parse(created[1]!) + Number(ttl[1]) : Infinity;
}
