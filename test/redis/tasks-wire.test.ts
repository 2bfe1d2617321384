// The tasks wire suite (test/wire/tasks-suite.ts) with two instances sharing one Redis behind a round-robin:
// every test's consecutive requests land on alternate instances, and the work runs on whichever took the call.
import { tasksWireSuite } from "../wire/tasks-suite.ts";
import { twoRedisInstances } from "./instances.ts";

tasksWireSuite({ label: "two instances sharing Redis", instances: twoRedisInstances("wire") });
