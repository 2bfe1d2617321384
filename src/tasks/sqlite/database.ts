// One adapter over the three synchronous SQLite handles a runtime has of its own: better-sqlite3's
// `Database` (Node), `node:sqlite`'s `DatabaseSync` (Node 22.5+, Deno) and `bun:sqlite`'s `Database`. All
// three prepare statements with `run`, `get` and `all` taking positional values, and run scripts with
// `exec`; they differ in what `get` answers for no row (undefined or null), and in their errors, which this
// file reads into the store-unavailable error when the file is locked or cannot be written. Nothing here
// imports any of them: the user passes the handle, told apart by its shape.
import { taskStoreUnavailable } from "../../protocol/errors.ts";

/** A value bound to a statement's `?`. */
export type SqlValue = string | number | bigint | null | Uint8Array;

/** A prepared statement, as each of the three handles gives one. */
export interface SqliteStatementLike {
  run(...values: SqlValue[]): unknown;
  get(...values: SqlValue[]): unknown;
  all(...values: SqlValue[]): unknown[];
}

/**
 * A synchronous SQLite handle: better-sqlite3 12's `Database`, `node:sqlite`'s `DatabaseSync` or
 * `bun:sqlite`'s `Database` (anything else with these two methods answering synchronously works too).
 */
export interface SqliteDatabaseLike {
  prepare(sql: string): SqliteStatementLike;
  exec(sql: string): unknown;
}

/** Which handle the store was given, by its shape (for errors and docs; the calls are the same). */
export type SqliteKind = "better-sqlite3" | "bun:sqlite" | "node:sqlite" | "sqlite";

/** One prepared statement, with `get` answering undefined for no row on every handle. */
export interface Statement {
  run(...values: SqlValue[]): number;
  get<T>(...values: SqlValue[]): T | undefined;
  all<T>(...values: SqlValue[]): T[];
}

/** The store's view of its handle: statements prepared once, transactions, and the file it is on. */
export interface Database {
  readonly kind: SqliteKind;
  /** The main database's file; "" for an in-memory database (nothing to watch). */
  readonly file: string;
  prepare(sql: string): Statement;
  exec(sql: string): void;
  /** Runs `body` in one `BEGIN IMMEDIATE` transaction: the write lock is taken first, so nothing it read can change before it commits. */
  transaction<T>(body: () => T): T;
  /** Runs `body`, reading a locked or unwritable file as the store-unavailable error (503 with Retry-After). */
  guard<T>(body: () => T): T;
}

function kindOf(handle: Record<string, unknown>): SqliteKind {
  if (typeof handle.pragma === "function" && typeof handle.transaction === "function") return "better-sqlite3";
  if (typeof handle.query === "function" && "filename" in handle) return "bun:sqlite";
  if (typeof handle.location === "function" || handle.constructor?.name === "DatabaseSync") return "node:sqlite";
  return "sqlite";
}

/** The handle, checked and wrapped; refuses anything that is not an open synchronous SQLite handle. */
export function openDatabase(handle: unknown, where: string): Database {
  if (typeof handle !== "object" || handle === null || typeof (handle as SqliteDatabaseLike).prepare !== "function" || typeof (handle as SqliteDatabaseLike).exec !== "function") {
    throw new TypeError(
      `${where}: database must be a synchronous SQLite handle (better-sqlite3's Database, node:sqlite's DatabaseSync or bun:sqlite's Database), ` +
        `e.g. ${where.replace("()", "")}({ database: new Database("tasks.db"), secret })`,
    );
  }
  const db = handle as SqliteDatabaseLike;
  const kind = kindOf(handle as Record<string, unknown>);
  const prepare = (sql: string): Statement => {
    const statement = db.prepare(sql);
    return {
      run: (...values) => Number((statement.run(...values) as { changes?: number | bigint } | undefined)?.changes ?? 0),
      get: <T>(...values: SqlValue[]) => (statement.get(...values) ?? undefined) as T | undefined,
      all: <T>(...values: SqlValue[]) => statement.all(...values) as T[],
    };
  };
  const probe = db.prepare("SELECT 1 AS one").get() as { one?: number } | Promise<unknown> | undefined;
  if (!probe || typeof (probe as Promise<unknown>).then === "function" || (probe as { one?: number }).one !== 1) {
    throw new TypeError(`${where}: database must answer synchronously (an asynchronous driver cannot make creation and the compare-and-set atomic here)`);
  }
  const main = prepare("PRAGMA database_list").all<{ name: string; file: string }>().find((row) => row.name === "main");
  const guard = <T>(body: () => T): T => {
    try {
      return body();
    } catch (error) {
      const why = unavailable(error);
      if (why === undefined) throw error;
      throw taskStoreUnavailable(`the SQLite file ${main?.file || "(in memory)"} ${why}`);
    }
  };
  // Prepared once: `exec` would parse the statement again on every transaction.
  const begin = db.prepare("BEGIN IMMEDIATE");
  const commit = db.prepare("COMMIT");
  const rollback = db.prepare("ROLLBACK");
  return {
    kind,
    file: main?.file ?? "",
    prepare,
    exec: (sql) => void db.exec(sql),
    guard,
    transaction<T>(body: () => T): T {
      begin.run();
      try {
        const result = body();
        commit.run();
        return result;
      } catch (error) {
        try {
          rollback.run();
        } catch {
          // Already rolled back by SQLite itself (a failed COMMIT, an I/O error): nothing is left to undo.
        }
        throw error;
      }
    },
  };
}

// SQLite's primary result codes meaning the file cannot be used now (busy, locked, I/O, full, read-only,
// cannot open), as each handle reports them: better-sqlite3 and bun:sqlite as `code`, node:sqlite as `errcode`.
const UNAVAILABLE: Record<number, string> = { 5: "is locked by another connection", 6: "is locked", 10: "cannot be read or written (I/O error)", 13: "is full", 8: "is read-only", 14: "cannot be opened" };
const CODES: Record<string, number> = { SQLITE_BUSY: 5, SQLITE_LOCKED: 6, SQLITE_IOERR: 10, SQLITE_FULL: 13, SQLITE_READONLY: 8, SQLITE_CANTOPEN: 14 };

/** Why the file cannot be used, for an error that says so; undefined for any other error (a bug, thrown as is). */
function unavailable(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const { code, errcode, message } = error as { code?: unknown; errcode?: unknown; message?: unknown };
  const primary = typeof errcode === "number" ? errcode & 0xff : typeof code === "string" ? CODES[code.replace(/^(SQLITE_[A-Z]+).*$/, "$1")] : undefined;
  if (primary !== undefined && UNAVAILABLE[primary]) return UNAVAILABLE[primary];
  // A handle closed under the store: every call fails the same way until it is open again.
  if (typeof message === "string" && /is not open|closed database/i.test(message)) return "was closed";
  return undefined;
}
