// A worker's shutdown on a signal: drain, close, then end the process with exit code 0 (a platform
// sends SIGTERM and, after its grace period, SIGKILL). A second signal while draining ends it at once.

/** Calls `shutdown` on the first of `signals`, then exits; returns the detach. */
export function onShutdownSignals(signals: readonly NodeJS.Signals[], shutdown: () => Promise<unknown>): () => void {
  let started = false;
  const handler = () => {
    if (started) return process.exit(1);
    started = true;
    shutdown().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error("h3-mcp task worker: shutdown failed:", error);
        process.exit(1);
      },
    );
  };
  for (const signal of signals) process.on(signal, handler);
  return () => {
    for (const signal of signals) process.off(signal, handler);
  };
}
