// A served instance's shutdown on SIGTERM or SIGINT, as a plugin of h3's `serve()` (srvx): the tasks plugin
// drains while the listener stays open, so that tasks/* are still answered and a new task gets its 503 with
// Retry-After; then the server closes and the process exits 0. srvx's own graceful shutdown would close the
// listener at the signal (every request of the drain refused), so the plugin turns it off: srvx reads that
// option after its plugins have run.
import type { ServerPlugin } from "srvx";
import type { MaybePromise } from "../utils/maybe-promise.ts";
import { checkOptions, type OptionNames } from "../utils/options.ts";
import { drainDeadline } from "./drain.ts";
import type { DrainOptions } from "./executor.ts";
import type { DrainReport } from "./executor.ts";
import { onShutdownSignals } from "./shutdown-signals.ts";

export interface DrainOnSignalOptions extends DrainOptions {
  /** Told as the drain starts, with the signal that started it (to log it, say). */
  readonly onSignal?: (signal: "SIGTERM" | "SIGINT") => void;
  /** Told the drain's report once it ends, before the server closes. */
  readonly onDrained?: (report: DrainReport) => void;
  /** Releases what else the process holds (a store's connections, telemetry) once the server is closed; the process exits 0 once it settles. */
  readonly close?: () => MaybePromise<unknown>;
}

/** The most the requests still under way after the drain (the one that ended the last task, say) get before what is open (listen streams) is cut. */
export const CLOSE_GRACE_MS = 1000;

const OPTION_NAMES: OptionNames<DrainOnSignalOptions> = { deadlineMs: true, onSignal: true, onDrained: true, close: true };

/**
 * A plugin of h3's `serve()` that drains `tasks` on SIGTERM or SIGINT, serving requests meanwhile, then closes
 * the server and exits the process with code 0. A second signal exits at once, with code 1.
 *
 * @example
 * const server = serve(app, {
 *   port: 3000,
 *   plugins: [drainOnSignal(tasks, { deadlineMs: 30_000, close: () => store.close() })],
 * });
 */
export function drainOnSignal(tasks: { drain(options: DrainOptions): Promise<DrainReport> }, options: DrainOnSignalOptions): ServerPlugin {
  checkOptions("drainOnSignal()", options, OPTION_NAMES);
  const deadlineMs = drainDeadline(options);
  return (server) => {
    server.options.gracefulShutdown = false;
    // A runtime without signals (Cloudflare Workers) has nothing to drain on.
    if (typeof globalThis.process?.on !== "function") return;
    onShutdownSignals(
      ["SIGTERM", "SIGINT"],
      async (signal) => {
        options.onSignal?.(signal);
        const report = await tasks.drain({ deadlineMs });
        options.onDrained?.(report);
        // Nothing runs after the drain, so close() waits only for the requests under way.
        let grace: ReturnType<typeof setTimeout> | undefined;
        await Promise.race([server.close(), new Promise((resolve) => (grace = setTimeout(resolve, CLOSE_GRACE_MS)))]);
        clearTimeout(grace);
        await server.close(true);
        await options.close?.();
      },
      "h3-mcp drainOnSignal",
    );
  };
}
