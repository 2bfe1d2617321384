// Owners as Redis holds them: a keyed hash of the owner key (HMAC-SHA256 with the store's secret), never
// the principal itself, so a Redis dump names nobody and a guessed owner cannot be matched offline.
import { createHmac } from "node:crypto";
import { UNBOUND } from "../owner.ts";

/** The stored form of "nobody": a task no one is bound to. */
export const NO_OWNER = "-";

/** The error a bound task meets on a store without a secret: said at setup, or at the latest at creation. */
export function secretRequired(): TypeError {
  return new TypeError(
    "redisTaskStore: tasks are bound to their callers (mcpTasks({ bind }), or authorization), so the store needs `secret`, " +
      "the key it hashes owners with before they reach Redis: give every instance the same random value, " +
      "e.g. redisTaskStore({ url, secret: process.env.MCP_TASKS_SECRET })",
  );
}

/** The stored form of an owner key (see `ownerKey`). */
export function ownerHash(owner: string, secret: string | undefined): string {
  if (owner === UNBOUND) return NO_OWNER;
  if (!secret) throw secretRequired();
  return createHmac("sha256", secret).update(owner).digest("base64url");
}
