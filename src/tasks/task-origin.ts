// What a new task carries from the call that created it (`mcpTasks({ origin })` and the plugins'
// `taskOrigin`): a small JSON object, kept with the task by every store.
import type { H3Event } from "h3";
import type { JsonObject } from "../protocol/types.ts";
import type { TaskOrigin } from "./store.ts";

/** The user's origin and the plugins', the plugins' keys winning. */
export function mergeOrigins(user: TaskOrigin | undefined, plugins: TaskOrigin | undefined): TaskOrigin | undefined {
  return user && plugins ? { ...user, ...plugins } : (user ?? plugins);
}

/** An origin is a task's companion for its whole life, in every store: JSON data, and small. */
const MAX_ORIGIN_BYTES = 4096;

/** The origin `origin(event)` gives, as a JSON copy; a TypeError when it is not a small JSON object. */
export function originOf(origin: (event: H3Event) => TaskOrigin | undefined, event: H3Event): TaskOrigin | undefined {
  const value = origin(event);
  if (value === undefined) return undefined;
  let json: string | undefined;
  try {
    json = typeof value === "object" && value !== null && !Array.isArray(value) ? JSON.stringify(value) : undefined;
  } catch {
    json = undefined;
  }
  if (json === undefined || (json.length > MAX_ORIGIN_BYTES / 3 && new TextEncoder().encode(json).length > MAX_ORIGIN_BYTES)) {
    throw new TypeError(`mcpTasks: origin must return a JSON object of at most ${MAX_ORIGIN_BYTES} bytes, or undefined`);
  }
  return JSON.parse(json) as JsonObject;
}
