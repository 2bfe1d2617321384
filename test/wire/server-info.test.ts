// serverInfo in every result's _meta (test/wire/server-info-suite.ts), with tasks in this process's memory,
// and again with every hook installed, so that answers passing through plugins leave the same way.
import type { McpPlugin } from "../../src/index.ts";
import { serverInfoSuite } from "./server-info-suite.ts";

serverInfoSuite("tasks in memory", () => [{}]);

const passThrough = (): McpPlugin => ({
  name: "pass-through",
  wrapRequest: (_event, next) => next(),
  wrapTaskRun: (_task, next) => next(),
  wrapToolCall: (_event, _tool, next) => next(),
  taskOrigin: () => ({ "com.example/seen": true }),
});
serverInfoSuite("tasks in memory, through every hook", () => [{}], () => [passThrough()]);
