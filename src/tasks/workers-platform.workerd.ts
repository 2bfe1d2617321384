// The workerd build of workers-platform.ts, chosen by package.json's `imports` under the `workerd`
// condition. A namespace import, so that a workerd too old to export `waitUntil` still loads the
// module; task creation then refuses with an error that says so (see keep-alive.ts).
import * as workers from "cloudflare:workers";
import type { WorkersPlatform } from "./workers-platform.ts";

export const workersPlatform: WorkersPlatform = { workerdBuild: true, onWorkers: true, waitUntil: workers.waitUntil };
