// The task store kit (h3-mcp/tasks/testing) on the SQLite store: two instances of one logical server per
// test, each on its own connection to a fresh file, requests alternating between them; our extra checks
// are the official schemas. A lost instance is one whose store closed and whose lease row was deleted.
import { afterAll, describe, it } from "vitest";
import type { SqliteTaskStore } from "../../src/tasks/sqlite/index.ts";
import { taskStoreSuite } from "../../src/tasks/testing/index.ts";
import { checkTaskShape } from "../helpers/schemas.ts";
import { sqliteFolder } from "./files.ts";

const folder = sqliteFolder();
afterAll(() => folder.remove());

taskStoreSuite({
  name: "two instances sharing one SQLite file",
  shared: true,
  runs: true,
  open: () => folder.stores(2),
  close: (stores) => stores.forEach((store) => (store as SqliteTaskStore).close()),
  loseInstance(store) {
    const lost = store as SqliteTaskStore;
    lost.close();
    folder.open(lost.file).prepare("DELETE FROM mcp_task_leases WHERE worker = ?").run(lost.workerId);
  },
  runner: { describe, it },
  checkShape: checkTaskShape,
});
