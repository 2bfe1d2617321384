// How a request keeps the work it started alive after its response: h3's `event.waitUntil`, else on
// Workers the `waitUntil` of `cloudflare:workers`, and on Workers a creating request held while its task
// waits for input.
import type { H3Event } from "h3";
import { workersPlatform } from "#workers-platform";
import { ErrorCode, McpJsonRpcError } from "../protocol/errors.ts";
import type { TaskSnapshot } from "./envelopes.ts";
import type { FollowedTask } from "./run-view.ts";

/** The request's waitUntil, and how long it must outlive a parked run (see `untilIdle`). */
export interface KeepAlive {
  waitUntil(work: Promise<unknown>): void;
  holdParkedMs: number;
}

/**
 * Settles when the task stops working in this request's name: when its status is final (whether or not its
 * run's promise has settled: a run that ignores its signal may never settle, and must not hold a server's
 * graceful close open), when it stops running here, or once it has been parked in input_required for
 * `holdParkedMs`. On Workers, a run parked in `requestInput` is resumed by the `tasks/update` request, and
 * workerd drops that resumption if the request that started the run is already over; so there the creating
 * request is held while the task waits for input. The pending timer also keeps workerd from judging the
 * held request hung.
 */
export function untilIdle(task: FollowedTask, holdParkedMs = 0): Promise<void> {
  return new Promise((resolve) => {
    if (!task.current()) return resolve();
    let hold: ReturnType<typeof setTimeout> | undefined;
    const done = () => {
      clearTimeout(hold);
      unfollow();
      unleave();
      resolve();
    };
    const follow = (snapshot: TaskSnapshot) => {
      clearTimeout(hold);
      hold = undefined;
      if (snapshot.value === "working") return;
      if (snapshot.value !== "input_required" || holdParkedMs <= 0) return done();
      hold = setTimeout(done, holdParkedMs);
    };
    // Status changes reach the followers from whichever actor the task has (a shared store may restart it).
    const unfollow = task.follow(follow);
    // A task that stops running here without ending (handed to another instance) no longer needs this request.
    const unleave = task.onLeave(done);
    follow(task.snapshot);
  });
}

/** How this request keeps the work it starts alive (see `keepAliveRefusal` for where nothing can). */
export function keepAliveFor(event: H3Event): KeepAlive {
  const onWorkers = runsOnWorkers(event);
  // srvx puts the platform's waitUntil on the request; a Worker that exports `{ fetch: app.fetch }` gets
  // none there, and only the workerd build has the one `cloudflare:workers` exports.
  const waitUntil = event.req.waitUntil ? (work: Promise<unknown>) => event.waitUntil(work) : onWorkers ? workersPlatform.waitUntil : undefined;
  return { waitUntil: waitUntil ?? ignore, holdParkedMs: onWorkers ? WORKERS_HOLD_MS : 0 };
}

/**
 * The error that refuses a task where its run could not outlive the response: on Workers, with no
 * waitUntil on the request nor from `cloudflare:workers`, the run would stop with the response and the
 * task stay `working` until it expired. Undefined wherever a run can go on.
 */
export function keepAliveRefusal(event: H3Event): McpJsonRpcError | undefined {
  if (event.req.waitUntil || workersPlatform.waitUntil || !runsOnWorkers(event)) return undefined;
  const fallback = workersPlatform.workerdBuild
    ? "cloudflare:workers (this workerd is too old to export one: update wrangler)"
    : "this build of h3-mcp (bundled without the workerd export condition, which brings the one cloudflare:workers exports)";
  return new McpJsonRpcError(
    ErrorCode.InternalError,
    `No task can be created: on Cloudflare Workers a task's run needs a waitUntil to outlive the response, and neither the request (a Worker that exports app.fetch itself passes none) nor ${fallback} gives one. Export { fetch: serve(app, { manual: true }).fetch } with h3's serve, which hands each request the Worker's ctx.waitUntil${workersPlatform.workerdBuild ? "" : ", or bundle with the workerd condition"}`,
  );
}

// --- Internal ---

/** Workers keep work alive for 30 s after the response (waitUntil's limit): the longest a parked run can be held. */
const WORKERS_HOLD_MS = 30_000;

/** Elsewhere the process outlives the response: nothing to do when the request brings no waitUntil. */
const ignore = () => {};

function runsOnWorkers(event: H3Event): boolean {
  // srvx names the runtime on the request; only workerd ends a request's promises with its response.
  return workersPlatform.onWorkers || (event.runtime as { name?: string } | undefined)?.name === "cloudflare";
}
