// Owners as a store outside this process keeps them: a keyed hash of the owner key (HMAC-SHA256 under the
// store's secret), never the principal itself, so a dump of the store names nobody and a guessed owner
// cannot be matched offline. Shared by every such store; each says in its own words why it needs the secret.
import { createHmac } from "node:crypto";
import { UNBOUND } from "./owner.ts";

/** The stored form of "nobody": a task no one is bound to. */
export const NO_OWNER = "-";

/**
 * The stored form of an owner key (see `ownerKey`); a bound owner without a secret throws what
 * `secretRequired` makes (the store's own setup error).
 */
export function keyedOwnerHash(owner: string, secret: string | undefined, secretRequired: () => TypeError): string {
  if (owner === UNBOUND) return NO_OWNER;
  if (!secret) throw secretRequired();
  return createHmac("sha256", secret).update(owner).digest("base64url");
}
