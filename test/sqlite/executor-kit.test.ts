// The executor kit (h3-mcp/tasks/testing) on the SQLite store, with the delivery loop that does not
// redeliver by itself: each instance on its own connection to one fresh file per case.
import { afterAll, describe, it } from "vitest";
import type { SqliteTaskStore } from "../../src/tasks/sqlite/index.ts";
import { taskExecutorSuite } from "../../src/tasks/testing/index.ts";
import { loopExecutor } from "../helpers/loop-executor.ts";
import { sqliteFolder } from "./files.ts";

const folder = sqliteFolder();
afterAll(() => folder.remove());

taskExecutorSuite({
  name: "a delivery loop on one SQLite file",
  open: (count) => folder.stores(count),
  close: (stores) => stores.forEach((store) => (store as SqliteTaskStore).close()),
  executor: loopExecutor,
  runner: { describe, it },
});
