// The bound on what one task keeps, on the SQLite store (the cases are test/helpers/task-bounds.ts): refused
// before the store is called, so it behaves as the in-memory one with no change to the store.
import { afterAll, afterEach } from "vitest";
import type { SqliteTaskStore } from "../../src/tasks/sqlite/index.ts";
import { describeTaskBounds } from "../helpers/task-bounds.ts";
import { sqliteFolder } from "./files.ts";

const folder = sqliteFolder();
afterAll(() => folder.remove());
const opened: SqliteTaskStore[] = [];
afterEach(() => {
  for (const store of opened.splice(0)) store.close();
});

describeTaskBounds("SQLite store", () => {
  const [store] = folder.stores(1);
  opened.push(store!);
  return store!;
});
