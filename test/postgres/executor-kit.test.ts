// The executor kit (h3-mcp/tasks/testing) on the Postgres store, with the delivery loop that does not
// redeliver by itself: each instance on its own pool, on one fresh schema per case.
import { describe, it } from "vitest";
import type { PostgresTaskStore } from "../../src/tasks/postgres/index.ts";
import { taskExecutorSuite } from "../../src/tasks/testing/index.ts";
import { loopExecutor } from "../helpers/loop-executor.ts";
import { postgresStores } from "./stores.ts";

const pg = postgresStores();

taskExecutorSuite({
  name: "a delivery loop on Postgres",
  open: (count) => pg.stores(count),
  close: (stores) => Promise.all(stores.map((store) => (store as PostgresTaskStore).close())).then(() => {}),
  executor: loopExecutor,
  runner: { describe, it },
});
