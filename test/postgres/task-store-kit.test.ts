// The task store kit (h3-mcp/tasks/testing) on the Postgres store: two instances of one logical server per
// test, on a fresh schema of a throwaway cluster, requests alternating between them; our extra checks are
// the official schemas. A lost instance is one whose store closed and whose lease row was deleted.
import { describe, it } from "vitest";
import type { PostgresTaskStore } from "../../src/tasks/postgres/index.ts";
import { taskStoreSuite } from "../../src/tasks/testing/index.ts";
import { checkTaskShape } from "../helpers/schemas.ts";
import { postgresStores } from "./stores.ts";

const pg = postgresStores();

taskStoreSuite({
  name: "two instances sharing Postgres",
  shared: true,
  runs: true,
  open: () => pg.stores(2),
  close: (stores) => Promise.all(stores.map((store) => (store as PostgresTaskStore).close())).then(() => {}),
  async loseInstance(store) {
    const lost = store as PostgresTaskStore;
    await lost.close();
    await pg.server.query(`DELETE FROM "${lost.schema}".mcp_task_leases WHERE worker = $1`, [lost.workerId]);
  },
  runner: { describe, it },
  checkShape: checkTaskShape,
});
