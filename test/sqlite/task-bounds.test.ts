// The bound on what one task keeps, on the SQLite store (the cases are test/helpers/task-bounds.ts): refused
// before the store is called, so it behaves as the in-memory one with no change to the store.
import { afterAll } from "vitest";
import { describeTaskBounds } from "../helpers/task-bounds.ts";
import { sqliteFolder } from "./files.ts";

const folder = sqliteFolder();
afterAll(() => folder.remove());

describeTaskBounds("SQLite store", () => folder.stores(1)[0]!, (store) => store.close());
