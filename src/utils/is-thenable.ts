// Whether a value is a promise or promise-like: what user code (a tool, a task's run) may return.

/** True for anything with a `then` method. */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === "function";
}
