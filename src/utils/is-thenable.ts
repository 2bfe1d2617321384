// Whether a value is a promise or promise-like: what user code (a tool, a task's run) may return.

/**
 * True for anything with a `then` method: the one promise check, so that a promise from another realm or
 * library (a schema's, a store's) is awaited like a native one.
 */
export function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as PromiseLike<T> | null)?.then === "function";
}
