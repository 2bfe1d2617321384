// Postgres stores for the tests: one throwaway cluster per test file (started by `postgresStores()`'s
// beforeAll), and a fresh schema per logical server, each instance on its own pool and its own LISTEN
// connection (a different pool is a different instance, as a different process is).
import { afterAll, beforeAll } from "vitest";
import { postgresTaskStore, type PostgresTaskStore, type PostgresTaskStoreOptions } from "../../src/tasks/postgres/index.ts";
import { startPostgres, type PostgresServer } from "../helpers/postgres-server.ts";

export function postgresStores() {
  let server: PostgresServer | undefined;
  let count = 0;
  const opened: PostgresTaskStore[] = [];
  beforeAll(async () => {
    server = await startPostgres();
  }, 60_000);
  afterAll(async () => {
    await Promise.all(opened.map((store) => store.close()));
    await server?.destroy();
  });
  return {
    get server(): PostgresServer {
      if (!server) throw new Error("the Postgres cluster is not started yet");
      return server;
    },
    /** A new schema's name. */
    schema: () => `t${process.pid}_${++count}`,
    /** `count` stores on one new schema (or `schema`), each on its own pool. */
    stores(n: number, options: Omit<PostgresTaskStoreOptions, "pool" | "connectionString"> = {}): PostgresTaskStore[] {
      const schema = options.schema ?? this.schema();
      const made = Array.from({ length: n }, () => postgresTaskStore({ secret: "kit-secret", leaseMs: 1000, ...options, schema, connectionString: this.server.url }));
      opened.push(...made);
      return made;
    },
  };
}
