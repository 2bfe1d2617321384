// A wait that a signal cuts short: a run waiting between its steps must stop at once when its task is
// cancelled, and a run that waits thousands of times must leave no listener behind on its signal.

/**
 * Resolves after `ms`, or rejects with `signal.reason` as soon as `signal` aborts (at once when it already
 * has). Adds one abort listener while it waits and removes it either way.
 */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  if (typeof ms !== "number" || !(ms >= 0) || ms === Infinity) {
    return Promise.reject(new TypeError(`task.sleep needs a finite number of milliseconds (0 or more), not ${String(ms)}`));
  }
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<void>((resolve, reject) => {
    const stop = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", stop);
      resolve();
    }, ms);
    signal.addEventListener("abort", stop, { once: true });
  });
}
