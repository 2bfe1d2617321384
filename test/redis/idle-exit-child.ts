// Child of idle-exit.test.ts: one instance, one task to its end, then nothing. It must exit on its own.
import { redisTaskStore } from "../../src/tasks/redis/index.ts";
import { tasksApp } from "../../src/tasks/testing/tasks-app.ts";
import { call, TASKS } from "../helpers/wire.ts";

const caps = { extensions: { [TASKS]: {} } };
const { app } = tasksApp({ store: redisTaskStore({ url: process.argv[2], prefix: `idle-${process.pid}`, leaseMs: 300 }) });
const { taskId } = (await call(app, "tools/call", { name: "tool_error" }, { caps })).body.result;
let status = "working";
while (status === "working") {
  await new Promise((r) => setTimeout(r, 20));
  status = (await call(app, "tasks/get", { taskId }, { caps })).body.result.status;
}
console.log(`finished: ${status}`);
