// The store of docs/examples/task-store.ts, the skeleton docs/task-stores.md walks through, passes the
// task store kit as two instances sharing one database: the page's example is a store that works.
import { describe, it } from "vitest";
import { taskStoreSuite } from "../../src/tasks/testing/index.ts";
import { Database, exampleTaskStore } from "../../docs/examples/task-store.ts";
import { checkTaskShape } from "../helpers/schemas.ts";

type ExampleStore = ReturnType<typeof exampleTaskStore>;
const databases = new WeakMap<ExampleStore, Database>();

taskStoreSuite({
  name: "docs/examples/task-store.ts, two instances sharing one database",
  shared: true,
  open() {
    const db = new Database();
    return [0, 1].map(() => {
      const store = exampleTaskStore(db, { secret: "example", leaseMs: 500 });
      databases.set(store, db);
      return store;
    });
  },
  close: (stores) => stores.forEach((store) => (store as ExampleStore).close()),
  loseInstance(store) {
    const lost = store as ExampleStore;
    lost.close();
    databases.get(lost)!.leases.delete(lost.instance);
  },
  runner: { describe, it },
  checkShape: checkTaskShape,
});
