// serverInfo in every result's _meta (test/wire/server-info-suite.ts), on two instances sharing Redis behind a
// round-robin: a task's tasks/get, update and cancel reach the instance that did not create it.
import { serverInfoSuite } from "../wire/server-info-suite.ts";
import { twoRedisInstances } from "./instances.ts";

serverInfoSuite("two instances sharing Redis", twoRedisInstances("server-info"));
