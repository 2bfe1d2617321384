/** Waits `ms`, or rejects with the signal's reason as soon as it aborts (so cancelled work stops at once). */
export const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const abort = () => (clearTimeout(timer), reject(signal!.reason));
    // The listener goes with the wait: a run of many steps on one signal must not pile them up.
    const timer = setTimeout(() => (signal?.removeEventListener("abort", abort), resolve()), ms);
    signal?.addEventListener("abort", abort, { once: true });
  });
