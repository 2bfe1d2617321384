// SQLite files for the tests: a fresh file in a temp folder per logical server, each instance on its own
// better-sqlite3 connection (a different connection is a different instance, as a different process is).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { sqliteTaskStore, type SqliteTaskStore, type SqliteTaskStoreOptions } from "../../src/tasks/sqlite/index.ts";

/** A temp folder for this test file's databases, removed by `remove()`. */
export function sqliteFolder() {
  const dir = mkdtempSync(path.join(tmpdir(), "h3-mcp-sqlite-"));
  let count = 0;
  const handles: Database.Database[] = [];
  return {
    dir,
    /** A new file's path (not created yet). */
    file: () => path.join(dir, `tasks-${++count}.db`),
    /** An open connection on `file`, closed by `remove()`. */
    open(file: string): Database.Database {
      const handle = new Database(file);
      handles.push(handle);
      return handle;
    },
    /** `count` stores on one new file, each on its own connection. */
    stores(count: number, options: Omit<SqliteTaskStoreOptions, "database"> = {}): SqliteTaskStore[] {
      const file = this.file();
      return Array.from({ length: count }, () => sqliteTaskStore({ secret: "kit-secret", leaseMs: 1000, ...options, database: this.open(file) }));
    },
    remove() {
      for (const handle of handles) if (handle.open) handle.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
