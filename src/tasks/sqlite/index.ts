// The "h3-mcp/tasks/sqlite" entry: a task store in one SQLite file, shared by the processes of one host.
//   sqlite-task-store.ts   sqliteTaskStore(options): the TaskStore (create, read, write, lease, catch-up)
//   database.ts            one adapter over better-sqlite3, node:sqlite and bun:sqlite; a locked file read
//                          as the store-unavailable error
//   schema.ts              the tables, created once per file and versioned
//   holds.ts, runs.ts      leases, fences and holds; claims, hand-offs and run records of runs found by name
//   sealing.ts             what the file keeps sealed under `secret`
//   read-caches.ts         the finished tasks and owner hashes an instance keeps in memory
//   change-feed.ts         the change rows every write appends, and how each process reads them
export { sqliteTaskStore } from "./sqlite-task-store.ts";
export type { SqliteTaskStore, SqliteTaskStoreOptions } from "./sqlite-task-store.ts";
export type { SqliteDatabaseLike, SqliteKind, SqliteStatementLike, SqlValue } from "./database.ts";
