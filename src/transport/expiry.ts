// Long-lived streams end when the token that opened them expires: a stream must not outlive the
// authorization it was opened with. The client opens a new one with a fresh token.

/** setTimeout's largest delay; a later expiry is re-armed when it fires. */
const MAX_DELAY = 2 ** 31 - 1;

/**
 * Runs `end` at `expiresAt` (ms since the epoch), never synchronously; returns the function that cancels
 * it, or undefined when there is no expiry. The timer never holds a process open.
 */
export function atExpiry(expiresAt: number | undefined, end: () => void): (() => void) | undefined {
  if (expiresAt === undefined) return undefined;
  let timer: ReturnType<typeof setTimeout>;
  const arm = () => {
    const delay = expiresAt - Date.now();
    timer = setTimeout(delay <= 0 ? end : arm, Math.max(0, Math.min(delay, MAX_DELAY)));
    (timer as { unref?: () => void }).unref?.();
  };
  arm();
  return () => clearTimeout(timer);
}
