// A Postgres statement error as the client and the operator see it, over the wire on a real database: the
// client gets -32603 "Task store error (SQLSTATE …)" (HTTP 200, as every -32603 but the store-unavailable
// 503) and nothing of what Postgres said, whose message may quote a row's content; onError hears it whole.
import { expect, it } from "vitest";
import { defineMcpHandler, defineTool, mcpTask } from "../../src/index.ts";
import { mcpTasks } from "../../src/tasks/index.ts";
import { appFor, call, TASKS } from "../helpers/wire.ts";
import { postgresStores } from "./stores.ts";

const cluster = postgresStores();
const caps = { extensions: { [TASKS]: {} } };

it("a statement error reaches the client as its SQLSTATE alone, and onError with Postgres's own message", async () => {
  const [store] = cluster.stores(1);
  const errors: unknown[] = [];
  const note = defineTool({
    name: "note",
    execution: { taskSupport: "required" },
    handler: (event) => mcpTask(event, { run: (task) => new Promise((resolve) => task.signal.addEventListener("abort", () => resolve("stopped"))) }),
  });
  const handler = defineMcpHandler({ name: "errors", version: "1.0.0", tools: [note] }, { extensionPlugins: [mcpTasks({ store: store! })], onError: (error) => void errors.push(error) });
  const app = appFor(handler);
  const created = await call(app, "tools/call", { name: "note" }, { caps });
  expect(created.body.result.resultType).toBe("task");
  const taskId = created.body.result.taskId as string;

  // A constraint added by hand whose failure quotes the row: Postgres names the snapshot it tried to cast.
  await cluster.server.query(`ALTER TABLE "${store!.schema}".mcp_tasks ADD CONSTRAINT by_hand CHECK (snapshot IS NULL OR snapshot::int IS NOT NULL) NOT VALID`);
  const refused = await call(app, "tools/call", { name: "note" }, { caps });
  const text = JSON.stringify(refused.messages);
  expect(refused.status).toBe(200);
  expect(refused.body.error).toEqual({ code: -32603, message: "Task store error (SQLSTATE 22P02)" });
  expect(text).not.toContain("invalid input syntax");
  expect(text).not.toContain("createdAt");

  expect(errors).toHaveLength(1);
  const told = errors[0] as Error & { code?: string };
  expect(told.code).toBe("22P02");
  expect(told.message).toMatch(/^invalid input syntax for type integer: ".*createdAt/);

  // A table dropped by hand: the same, with its own SQLSTATE; the task created before is still read.
  await cluster.server.query(`ALTER TABLE "${store!.schema}".mcp_tasks DROP CONSTRAINT by_hand`);
  expect((await call(app, "tasks/get", { taskId }, { caps })).body.result.taskId).toBe(taskId);
  await cluster.server.query(`DROP TABLE "${store!.schema}".mcp_task_changes`);
  const cancel = await call(app, "tasks/cancel", { taskId }, { caps });
  expect(cancel.status).toBe(200);
  expect(cancel.body.error).toEqual({ code: -32603, message: "Task store error (SQLSTATE 42P01)" });
  expect(JSON.stringify(cancel.messages)).not.toContain("mcp_task_changes");
  // (The lease renewal, which clears old change rows, fails alike meanwhile: onError hears it too.)
  expect(errors.some((error) => (error as { code?: string }).code === "42P01")).toBe(true);
});
