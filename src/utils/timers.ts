// Timers that never hold a process open: a server with nothing else to do still exits. Runtimes without
// the notion (workerd, browsers) hand back a number, which has no `unref`.

/** setTimeout's longest delay; a later time is waited for in steps. */
const MAX_DELAY = 2 ** 31 - 1;

/**
 * Runs `fire` once `now()` reaches `at`, never synchronously; a time further off than setTimeout can wait
 * is reached in steps, each checking the clock again. Returns the function that cancels it.
 */
export function unrefTimerAt(at: number, now: () => number, fire: () => void): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = () => {
    timer = setTimeout(
      () => {
        timer = undefined;
        if (now() < at) arm();
        else fire();
      },
      Math.min(MAX_DELAY, Math.max(0, at - now())),
    );
    timer.unref?.();
  };
  arm();
  return () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
  };
}

/** Runs `tick` every `ms` until the returned function is called. */
export function unrefInterval(ms: number, tick: () => void): () => void {
  const timer = setInterval(tick, ms);
  timer.unref?.();
  return () => clearInterval(timer);
}
