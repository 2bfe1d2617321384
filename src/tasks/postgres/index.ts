// The "h3-mcp/tasks/postgres" entry: a task store shared by every instance through one Postgres database.
//   postgres-task-store.ts   postgresTaskStore(options): the TaskStore (create, read, write, lease, catch-up, relay)
//   schema.ts             the tables and functions, versioned (postgresTaskStoreSql() prints them)
//   migration.ts          running them at connect, once per schema, under an advisory lock
//   connection.ts         the pool, every statement bounded in time, an outage read as the store-unavailable error
//   change-feed.ts        LISTEN/NOTIFY, and the catch-up read of the change rows after the connection drops
//   runs.ts               runs found by name: claims, hand-offs, the claimable tasks, the sealed run record
//   ../hub-bridge.ts      list-changed and resource-updated announcements between instances
import { migrationSql } from "./schema.ts";

export { postgresTaskStore } from "./postgres-task-store.ts";
export type { PostgresTaskStore, PostgresTaskStoreOptions } from "./postgres-task-store.ts";
export type { ClaimedTask } from "./runs.ts";
export type { PostgresPoolLike } from "./connection.ts";

/** The whole migration as one SQL script, for those who run migrations themselves (then `migrate: false`). */
export function postgresTaskStoreSql(schema = "h3_mcp"): string {
  return migrationSql(schema);
}
