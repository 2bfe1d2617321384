// The other Worker entry, `{ fetch: app.fetch }` (durable-object/runs-worker-app-fetch.ts), with runs found
// by name executing inside the tasks Durable Object: no request carries a waitUntil, and the essentials
// pass all the same (durable-object/runs-smoke.ts): a named run completes in the object, and an input round
// answered after the creating request ended resumes it there.
import { describeRunsInObject } from "./durable-object/runs-smoke.ts";

describeRunsInObject("runs found by name inside the tasks Durable Object, Worker entry { fetch: app.fetch }", "workerd-do-runs-app-fetch", "runs-worker-app-fetch.ts");
