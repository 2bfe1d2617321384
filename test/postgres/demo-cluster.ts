// The durability cluster (test/durability/cluster.ts) on one Postgres database instead of Redis: every demo
// process started with DATABASE_URL on the throwaway cluster shares it, as instances on several hosts do.
import type { ClusterBackend } from "../durability/cluster.ts";
import { startPostgres, type PostgresServer } from "../helpers/postgres-server.ts";

export function postgresBackend(): ClusterBackend & { readonly server: PostgresServer } {
  let server: PostgresServer | undefined;
  return {
    get server() {
      if (!server) throw new Error("the Postgres cluster is not started yet");
      return server;
    },
    async open() {
      server = await startPostgres();
    },
    env: () => ({ DATABASE_URL: server!.url }),
    close: async () => server?.destroy(),
  };
}
