// Values that are there at once or later: the in-memory task store answers synchronously, a shared one
// with promises, and the code between them stays synchronous when it can.
import { isThenable } from "./is-thenable.ts";

/** A value, or a promise of it. */
export type MaybePromise<T> = T | Promise<T>;

/** `fn(value)`, after the value when it is a promise: synchronous in, synchronous out. */
export function after<T, R>(value: MaybePromise<T>, fn: (value: T) => MaybePromise<R>): MaybePromise<R> {
  return isThenable(value) ? Promise.resolve(value).then(fn) : fn(value);
}
