// The demo's SQLite store (MCP_TASKS_SQLITE=<file>): every demo started on the same file (and the same
// MCP_TASKS_SECRET) on this host is one server. The handle is better-sqlite3's, a dev dependency of this
// repository: a project of your own passes whichever handle its runtime has (docs/sqlite.md).
import Database from "better-sqlite3";
import { sqliteTaskStore, type SqliteTaskStore } from "h3-mcp/tasks/sqlite";

/** The store on `file`, and how to close it with its handle. */
export function openSqliteStore(file: string, leaseMs: number, secret: string | undefined): { store: SqliteTaskStore; close(): void } {
  const database = new Database(file);
  const store = sqliteTaskStore({ database, leaseMs, secret });
  return {
    store,
    close() {
      store.close();
      database.close();
    },
  };
}
