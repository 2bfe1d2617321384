// The store's connections to Postgres: a pool for its statements (the user's, or one it opens from a
// connection string), every statement bounded in time, and database trouble turned into one clear
// JSON-RPC error: an outage (refused, cut, shutting down, out of connections, a timeout) is the
// store-unavailable error (503 with Retry-After), anything else (a bug, a table changed by hand) an
// internal error that names the SQLSTATE alone (what Postgres said goes to onError).
import pg from "pg";
import { internalError, McpJsonRpcError, taskStoreUnavailable } from "../../protocol/errors.ts";

/** The part of a node-postgres (8) `Pool` the store uses; `options` lets it open its listening connection alike. */
export interface PostgresPoolLike {
  query(config: { text: string; values?: unknown[]; name?: string }): Promise<{ rows: any[] }>;
  on(event: "error", listener: (error: Error) => void): unknown;
  end(): Promise<void>;
  readonly options?: Record<string, unknown>;
}

export interface Connection {
  /**
   * One statement, bounded by the timeout; rejects with the store-unavailable or an internal error.
   */
  query<Row = Record<string, unknown>>(text: string, values?: unknown[]): Promise<Row[]>;
  /** A new client for LISTEN, on the same server and credentials as the pool. */
  listener(): pg.Client;
  /** Ends the pool the store opened (never one passed in). */
  close(): Promise<void>;
}

export function openConnection(options: { pool?: PostgresPoolLike; connectionString?: string; timeoutMs: number }): Connection {
  const { timeoutMs } = options;
  const owned = !options.pool;
  const config = {
    connectionString: options.connectionString,
    connectionTimeoutMillis: timeoutMs,
    query_timeout: timeoutMs,
    // An idle process must exit by itself: idle connections do not hold it open.
    allowExitOnIdle: true,
  };
  const pool: PostgresPoolLike = options.pool ?? (new pg.Pool(config) as unknown as PostgresPoolLike);
  // An idle connection cut by the server (a restart) is reported as an event; unheard, it would end the process.
  pool.on("error", () => {});
  let closed = false;

  return {
    query<Row>(text: string, values?: unknown[]): Promise<Row[]> {
      if (closed) return Promise.reject(taskStoreUnavailable("the store was closed"));
      const deadline = Date.now() + timeoutMs;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(taskStoreUnavailable(`Postgres did not answer within ${timeoutMs} ms`)), timeoutMs);
      });
      // A statement that surely did not run (no connection, or the server stopping or starting) is sent
      // again within the same time bound: a database restart shorter than the bound is not an outage.
      const config = { text, values };
      const attempt = (retries: number): Promise<Row[]> =>
        pool.query(config).then(
          (result) => result.rows as Row[],
          (error) => {
            const pause = Math.min(50 * 2 ** retries, 500);
            if (closed || !didNotRun(error) || Date.now() + pause >= deadline) return Promise.reject(failure(error));
            return new Promise<Row[]>((resolve) => setTimeout(resolve, pause)).then(() => attempt(retries + 1));
          },
        );
      return Promise.race([attempt(0), timeout]).finally(() => clearTimeout(timer));
    },
    listener() {
      const base = owned ? config : { ...(options.pool!.options ?? {}) };
      return new pg.Client({ ...base, connectionTimeoutMillis: timeoutMs, keepAlive: true } as pg.ClientConfig);
    },
    async close() {
      if (closed) return;
      closed = true;
      if (owned) await pool.end().catch(() => {});
    },
  };
}

// SQLSTATE classes that mean the database cannot be used now: connection exceptions, insufficient
// resources (too many connections, disk full), operator intervention (shutting down, starting up), system
// errors; and a transaction that lost a serialization race or a deadlock (trying again may work).
const OUTAGE = /^(08|53|57|58)|^40001$|^40P01$|^55P03$/;

/**
 * Whether a statement failed before it could run: the connection was refused or could not be had, or the
 * server was shutting down (57P01: the statement was cut and rolled back), starting up or out of connections,
 * or the statement's transaction was rolled back as a deadlock's victim or a serialization failure.
 */
function didNotRun(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  // A deadlock's victim (40P01) or a lost serialization race (40001) was rolled back whole: every call is
  // one statement in its own transaction, so sending it again is safe.
  if (code === "ECONNREFUSED" || code === "57P01" || code === "57P03" || code === "53300" || code === "40P01" || code === "40001") return true;
  return typeof message === "string" && /timeout exceeded when trying to connect/i.test(message);
}

/** What the caller is told of a failed statement. */
export function failure(error: unknown): McpJsonRpcError {
  if (McpJsonRpcError.isError(error)) return error;
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  const text = typeof message === "string" ? message : String(error);
  if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) && !OUTAGE.test(code)) {
    // Postgres's message may quote a row's content (a failed cast, a value out of range): the client hears
    // the SQLSTATE alone, onError the whole error.
    return Object.assign(internalError(error), { message: `Task store error (SQLSTATE ${code})` });
  }
  // A network error (refused, reset, timed out) or a connection cut under a statement.
  return taskStoreUnavailable(`Postgres: ${text}`);
}
