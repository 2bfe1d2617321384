// serverInfo in every result's _meta (test/wire/server-info-suite.ts), with tasks in this process's memory.
import { serverInfoSuite } from "./server-info-suite.ts";

serverInfoSuite("tasks in memory", () => [{}]);
