// What h3-mcp and its examples read of workerd's built-in module: `env`, `waitUntil` (workers-platform.workerd.ts) and the
// `DurableObject` base class the Durable Object store's object extends (RPC needs it). Kept to what is
// used, so the project needs no Workers type package; an app's own types (wrangler types) agree with it.
/** A Worker's bindings: `wrangler types` (or the app) declares its own, as Cloudflare's own types do. */
declare namespace Cloudflare {
  interface Env {}
}

declare module "cloudflare:workers" {
  /** The Worker's bindings, also at module scope (a Durable Object store can be made there). */
  export const env: Cloudflare.Env;
  /** Absent from a workerd older than August 2025, which does not export it. */
  export const waitUntil: ((promise: Promise<unknown>) => void) | undefined;

  /** One SQL statement's rows (SQLite-backed Durable Objects). */
  export interface SqlStorageCursor<Row> {
    toArray(): Row[];
    readonly rowsWritten: number;
  }
  export interface SqlStorage {
    exec<Row = Record<string, string | number | null>>(query: string, ...bindings: (string | number | null)[]): SqlStorageCursor<Row>;
  }
  export interface DurableObjectStorage {
    readonly sql: SqlStorage;
    getAlarm(): Promise<number | null>;
    setAlarm(scheduledTime: number): Promise<void>;
    deleteAlarm(): Promise<void>;
  }
  export interface DurableObjectState {
    readonly storage: DurableObjectStorage;
  }
  export abstract class DurableObject<Env = unknown> {
    protected readonly ctx: DurableObjectState;
    protected readonly env: Env;
    constructor(ctx: DurableObjectState, env: Env);
  }
}
