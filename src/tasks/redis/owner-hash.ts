// Owners as Redis holds them: the keyed hash of ../owner-hash.ts, with the Redis store's own word on the
// secret it needs.
import { keyedOwnerHash } from "../owner-hash.ts";

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
  return keyedOwnerHash(owner, secret, secretRequired);
}
