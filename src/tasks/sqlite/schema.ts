// The tables of the SQLite store, created at connect in one transaction and versioned in a table of their
// own (`mcp_task_meta`, not the file's `user_version`, which the file's other users may have taken): a
// file made by this schema version is used as it is, one without the tables is set up, and one made by a
// later version (a newer server wrote it) is refused rather than guessed at.
//   mcp_tasks          one row per task: owner hash, version, expiry, live snapshot or final JSON, the
//                      worker running it; for a run found by name its name, version, sealed record, the
//                      attempt holding it or that held it last, whether it is released, since when it waits
//   mcp_task_counts    tasks retained, per owner hash and in all ("*"), kept by triggers, for the caps
//   mcp_task_leases    one row per instance: until when its claim on the tasks it runs holds
//   mcp_task_changes   the change feed: every write and hand-off, appended in the write's transaction
// A write touches as few pages as it can: a closure's creation its row, its id and expiry index entries,
// the counts and (every half lease) the lease; a write its row and one change row. So only runs found by
// name are in the holders index, and the feed has no index beyond its sequence (no AUTOINCREMENT either,
// which writes sqlite_sequence on every row: the newest row is never trimmed, so numbers are not reused).
import type { Database } from "./database.ts";

export const SCHEMA_VERSION = 1;

/** The count row of every task, beside one row per owner hash (hashes are base64url: never "*"). */
export const ALL_OWNERS = "*";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS mcp_tasks (
  id TEXT PRIMARY KEY, owner TEXT NOT NULL, version INTEGER NOT NULL, expires_at REAL,
  snapshot TEXT, json TEXT, status TEXT, origin TEXT, worker TEXT,
  run_name TEXT, run_version INTEGER, record TEXT, attempt INTEGER, released INTEGER, since REAL
);
CREATE INDEX IF NOT EXISTS mcp_tasks_expiry ON mcp_tasks(expires_at) WHERE expires_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS mcp_tasks_runs ON mcp_tasks(run_name) WHERE run_name IS NOT NULL AND json IS NULL;
CREATE INDEX IF NOT EXISTS mcp_tasks_holders ON mcp_tasks(worker) WHERE worker IS NOT NULL AND run_name IS NOT NULL;
CREATE TABLE IF NOT EXISTS mcp_task_counts (owner TEXT PRIMARY KEY, n INTEGER NOT NULL);
INSERT OR IGNORE INTO mcp_task_counts (owner, n) VALUES ('${ALL_OWNERS}', 0);
CREATE TRIGGER IF NOT EXISTS mcp_tasks_added AFTER INSERT ON mcp_tasks BEGIN
  INSERT OR IGNORE INTO mcp_task_counts (owner, n) VALUES (NEW.owner, 0);
  UPDATE mcp_task_counts SET n = n + 1 WHERE owner IN (NEW.owner, '${ALL_OWNERS}');
END;
CREATE TRIGGER IF NOT EXISTS mcp_tasks_dropped AFTER DELETE ON mcp_tasks BEGIN
  UPDATE mcp_task_counts SET n = n - 1 WHERE owner IN (OLD.owner, '${ALL_OWNERS}');
  DELETE FROM mcp_task_counts WHERE owner = OLD.owner AND owner <> '${ALL_OWNERS}' AND n <= 0;
END;
CREATE TABLE IF NOT EXISTS mcp_task_leases (worker TEXT PRIMARY KEY, until REAL NOT NULL);
CREATE TABLE IF NOT EXISTS mcp_task_changes (
  seq INTEGER PRIMARY KEY, id TEXT NOT NULL, version INTEGER NOT NULL, name TEXT, at REAL NOT NULL, body TEXT
);
`;

/**
 * Sets the handle up for the store: WAL (readers never wait for a writer, and several processes share
 * the file), the lock wait, the sync level, then the tables, once per file.
 */
export function prepareFile(db: Database, options: { timeoutMs: number; synchronous: "normal" | "full"; where: string }): void {
  db.guard(() => {
    if (db.file) db.exec("PRAGMA journal_mode = WAL");
    db.exec(`PRAGMA busy_timeout = ${Math.ceil(options.timeoutMs)}`);
    db.exec(`PRAGMA synchronous = ${options.synchronous.toUpperCase()}`);
    db.transaction(() => {
      db.exec("CREATE TABLE IF NOT EXISTS mcp_task_meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL)");
      const found = db.prepare("SELECT value FROM mcp_task_meta WHERE key = 'schema'").get<{ value: number }>()?.value ?? 0;
      if (found > SCHEMA_VERSION) {
        throw new TypeError(`${options.where}: the file ${db.file} holds tasks of store schema ${found}, newer than this server's ${SCHEMA_VERSION}; run the newer server, or give this one another file`);
      }
      if (found === SCHEMA_VERSION) return;
      db.exec(SCHEMA);
      db.prepare("INSERT OR REPLACE INTO mcp_task_meta (key, value) VALUES ('schema', ?)").run(SCHEMA_VERSION);
    });
  });
}
