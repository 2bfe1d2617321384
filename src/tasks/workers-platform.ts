// What this build of h3-mcp knows of Cloudflare Workers. This file is the build for every runtime but
// workerd; under the `workerd` condition (wrangler's bundler and the other Workers toolchains set it),
// package.json's `imports` swap in workers-platform.workerd.ts, which adds the `waitUntil` that
// `cloudflare:workers` exports. No runtime probe: a bundler cannot trip on a module it never sees.

/** Cloudflare Workers as this build sees them. */
export interface WorkersPlatform {
  /** True in the build for workerd (the `workerd` condition chose it). */
  readonly workerdBuild: boolean;
  /** True when this code runs on Workers: the workerd build, or Workers' own `navigator.userAgent`. */
  readonly onWorkers: boolean;
  /** The running request's waitUntil, reached without its context object; only in the workerd build. */
  readonly waitUntil: ((work: Promise<unknown>) => void) | undefined;
}

// Read once at import, which Workers allow: it is neither I/O nor randomness nor a timer.
const userAgent = (globalThis as { navigator?: { userAgent?: unknown } }).navigator?.userAgent;

export const workersPlatform: WorkersPlatform = { workerdBuild: false, onWorkers: userAgent === "Cloudflare-Workers", waitUntil: undefined };
