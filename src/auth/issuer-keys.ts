// An issuer's signing keys: found through its metadata (`jwks_uri`) unless given, fetched once and
// kept, fetched again for a key id it does not know (at most once per cool-down, so a flood of made-up
// key ids costs the authorization server nothing) and refreshed in the background when old. A failed
// fetch never drops keys already known: tokens signed with them keep verifying while the server is down.
import { createLocalJWKSet, errors, type JWTVerifyGetKey } from "jose";
import { fetchBounded, fetchIssuerMetadata, readJson, type FetchOptions } from "./discovery.ts";
import { AuthorizationServerUnavailableError, InvalidTokenError } from "./refusals.ts";

export interface IssuerKeysOptions extends FetchOptions {
  issuer: string;
  /** The JWKS URL; found through the issuer's metadata when not given. */
  jwksUri?: string;
  /** Least time between two fetches, in milliseconds. Default 30 000. */
  cooldownMs?: number;
  /** Age after which keys are fetched again (in the background), in milliseconds. Default 600 000. */
  maxAgeMs?: number;
  /** @internal The clock, replaceable in tests. */
  now?: () => number;
}

type KeySet = ReturnType<typeof createLocalJWKSet>;

/** The key lookup `jwtVerify` takes, over one issuer's keys. */
export function createIssuerKeys(options: IssuerKeysOptions): JWTVerifyGetKey {
  const now = options.now ?? Date.now;
  const cooldownMs = options.cooldownMs ?? 30_000;
  const maxAgeMs = options.maxAgeMs ?? 600_000;
  let jwksUri = options.jwksUri;
  let keys: KeySet | undefined;
  let fetchedAt = -Infinity;
  let failure: AuthorizationServerUnavailableError | undefined;
  let pending: Promise<void> | undefined;

  const load = async () => {
    jwksUri ??= jwksUriOf(await fetchIssuerMetadata(options.issuer, options), options.issuer);
    let response: Response;
    try {
      response = await fetchBounded(jwksUri, { headers: { accept: "application/json, application/jwk-set+json" } }, options);
    } catch (error) {
      throw new AuthorizationServerUnavailableError(`${jwksUri}: ${error instanceof Error ? error.message : String(error)}`);
    }
    const set = await readJson(response, jwksUri);
    try {
      keys = createLocalJWKSet(set as unknown as Parameters<typeof createLocalJWKSet>[0]);
    } catch {
      throw new AuthorizationServerUnavailableError(`${jwksUri} answered something that is not a JSON Web Key Set`);
    }
  };
  const reload = (): Promise<void> => {
    pending ??= load()
      .then(
        () => {
          failure = undefined;
        },
        (error: unknown) => {
          failure =
            error instanceof AuthorizationServerUnavailableError ? error : new AuthorizationServerUnavailableError(String(error));
        },
      )
      .finally(() => {
        fetchedAt = now();
        pending = undefined;
      });
    return pending;
  };
  const mayFetch = () => now() - fetchedAt >= cooldownMs;
  // Not final (the issuer may publish the key later), but nothing can change before the next fetch is allowed.
  const unknownKey = () => new InvalidTokenError("invalid", { final: false, retryAt: fetchedAt + cooldownMs, detail: "unknown_key" });

  return async (header, token) => {
    if (!keys) {
      if (pending) await pending;
      else if (mayFetch()) await reload();
      if (!keys) throw failure ?? new AuthorizationServerUnavailableError(`No keys for issuer ${options.issuer} yet`);
    } else if (now() - fetchedAt > maxAgeMs && !pending) {
      void reload();
    }
    try {
      return await keys(header, token);
    } catch (error) {
      if (!(error instanceof errors.JWKSNoMatchingKey)) throw error;
    }
    // A key id we do not know: the issuer may have rotated its keys, so look once more, unless we just did.
    if (pending) await pending;
    else if (mayFetch()) await reload();
    else if (failure) throw failure;
    else throw unknownKey();
    if (failure) throw failure;
    try {
      return await keys(header, token);
    } catch (error) {
      if (error instanceof errors.JWKSNoMatchingKey) throw unknownKey();
      throw error;
    }
  };
}

function jwksUriOf(metadata: Record<string, unknown>, issuer: string): string {
  const uri = metadata.jwks_uri;
  if (typeof uri !== "string") throw new AuthorizationServerUnavailableError(`The metadata of ${issuer} has no jwks_uri`);
  return uri;
}
