// A process's shutdown on a signal: drain, close, then end the process with exit code 0 (a platform sends
// SIGTERM and, after its grace period, SIGKILL). A second signal while it shuts down ends it at once.

/** Calls `shutdown` on the first of `signals`, then exits; `who` names the process in a failure's log line. Returns the detach. */
export function onShutdownSignals<S extends NodeJS.Signals>(
  signals: readonly S[],
  shutdown: (signal: S) => Promise<unknown>,
  who: string,
): () => void {
  let started = false;
  const handler = (signal: S) => {
    if (started) return process.exit(1);
    started = true;
    shutdown(signal).then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(`${who}: shutdown failed:`, error);
        process.exit(1);
      },
    );
  };
  for (const signal of signals) process.on(signal, handler);
  return () => {
    for (const signal of signals) process.off(signal, handler);
  };
}
