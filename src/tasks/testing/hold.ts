// A gate a test puts in its own task tool, so that the tool takes each of its steps only when the test
// lets it (model-driver.ts's `proceed`): only a tool held there can be caught working.

/** A tool's run held between its steps until a test lets it go (see `createHold`). */
export interface Hold {
  /** Waits in `run` until the test releases one step; rejects once `signal` aborts (the task was cancelled). */
  step(signal?: AbortSignal): Promise<void>;
  /** Lets the oldest waiting step go, or the next one to come. Give it to `driveModelPath` as `proceed`. */
  release(): void;
}

/**
 * Holds a task tool's `run` before each of its steps, so that a test decides when it takes them: inject it
 * into your tool, `await hold.step(task.signal)` before each round and before the end, and pass
 * `proceed: hold.release` to `driveModelPath` (with `held: true` in the tool's model).
 */
export function createHold(): Hold {
  const waiting: (() => void)[] = [];
  let banked = 0;
  return {
    step(signal) {
      if (banked > 0) {
        banked--;
        return Promise.resolve();
      }
      return new Promise<void>((resolve, reject) => {
        const go = () => {
          signal?.removeEventListener("abort", stop);
          resolve();
        };
        const stop = () => {
          const at = waiting.indexOf(go);
          if (at >= 0) waiting.splice(at, 1);
          reject(signal!.reason);
        };
        if (signal?.aborted) return reject(signal.reason);
        signal?.addEventListener("abort", stop, { once: true });
        waiting.push(go);
      });
    },
    release() {
      const go = waiting.shift();
      if (go) go();
      else banked++;
    },
  };
}
