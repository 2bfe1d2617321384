// The tasks object's part for `durableObjectExecutor()`: the attempts it was handed, kept in a
// `deliveries` table until they end, and executed here with the tasks plugin the module served. A
// delivery is due at once; the alarm starts every due one that is not executing in this instance of the
// object, so one lost with an earlier instance (evicted, restarted, crashed) is executed again, and the
// store's claim makes that the next attempt (a holder still leased answers `taken`: due again when its
// lease lapses). While attempts execute here the alarm comes back every `HEARTBEAT_MS`.
import type { SqlStorage } from "cloudflare:workers";
import type { TaskExecution } from "../executor.ts";
import { servingHost } from "./executor.ts";

export const DELIVERIES_SCHEMA = `
CREATE TABLE IF NOT EXISTS deliveries (id TEXT PRIMARY KEY, server TEXT NOT NULL, due REAL NOT NULL);
CREATE INDEX IF NOT EXISTS deliveries_due ON deliveries(due);
`;

/** How often the alarm comes back while attempts execute here or deliveries wait. */
export const HEARTBEAT_MS = 5000;
/** The wait before a delivery whose execution failed (the object unreachable from itself, a thrown host) is tried again. */
const RETRY_MS = 1000;

export class ObjectDeliveries {
  readonly #sql: SqlStorage;
  /** Tasks executing in this instance of the object. */
  readonly #executing = new Set<string>();
  readonly #changed: () => void;

  /** `changed` reschedules the alarm: a delivery was added, became due later, or ended. */
  constructor(sql: SqlStorage, changed: () => void) {
    this.#sql = sql;
    this.#changed = changed;
  }

  add(id: string, server: string, at: number): void {
    this.#sql.exec("INSERT INTO deliveries (id, server, due) VALUES (?, ?, ?) ON CONFLICT(id) DO NOTHING", id, server, at);
  }

  /**
   * When the alarm must come next for the deliveries: the earliest due one not executing here, or a heartbeat
   * while any executes here. An executing delivery's own due time is past: counting it would set the alarm
   * into the past again and again while it runs, and workerd cancels an alarm handler it was about to run
   * when the alarm is moved meanwhile (its "alarm handler canceled" warning).
   */
  nextAt(at: number): number | null {
    const [next] = this.#sql
      .exec<{ at: number | null }>("SELECT MIN(due) AS at FROM deliveries WHERE id NOT IN (SELECT value FROM json_each(?))", JSON.stringify([...this.#executing]))
      .toArray();
    const due = next?.at ?? null;
    if (!this.#executing.size) return due;
    return Math.min(due ?? Infinity, at + HEARTBEAT_MS);
  }

  /** Starts every due delivery not executing here (the alarm's part). */
  startDue(at: number): void {
    const due = this.#sql.exec<{ id: string; server: string }>("SELECT id, server FROM deliveries WHERE due <= ?", at).toArray();
    for (const { id, server } of due) if (!this.#executing.has(id)) void this.#execute(id, server);
  }

  async #execute(id: string, server: string): Promise<void> {
    const host = servingHost(server);
    this.#executing.add(id);
    let again: number | null;
    try {
      if (!host) throw new Error(`no tasks plugin serves object "${server}" here: give it to durableObjectExecutor().serve() at module scope`);
      again = nextTry(await host.execute(id));
    } catch {
      again = RETRY_MS;
    } finally {
      this.#executing.delete(id);
    }
    if (again === null) this.#sql.exec("DELETE FROM deliveries WHERE id = ?", id);
    else this.#sql.exec("UPDATE deliveries SET due = ? WHERE id = ?", Date.now() + again, id);
    this.#changed();
  }
}

/** How long until a delivery is executed again after `execution`; null when it is done. */
function nextTry(execution: TaskExecution): number | null {
  switch (execution.outcome) {
    case "taken":
      return execution.retryInMs;
    case "handed_off":
    case "draining":
    // Nothing but this delivery executes the task's next attempt; the claim decides whether it runs.
    case "fenced":
      return 0;
    case "unserved":
      // A module not serving the run's name or version yet (a deploy rolling out): tried again later.
      return HEARTBEAT_MS;
    default:
      return null;
  }
}
