// The contract every token verifier meets (JWT, introspection, or the app's own function): a token in,
// what it proves out, or a refusal thrown.
import type { OptionNames } from "../utils/options.ts";

/** Audiences a token may name instead of this server's canonical URI (RFC 8707), for issuers that cannot say it. */
export interface AudiencePolicy {
  /**
   * Values accepted in `aud` besides the resource URI, e.g. `["authenticated"]` for Supabase, whose tokens
   * name that and never the resource. Such a token is good for every API of that issuer that accepts it:
   * use this only with an issuer that serves this server alone.
   */
  accept?: readonly string[];
  /**
   * Accept tokens that name no audience at all (Clerk's session tokens). The same caution applies: any
   * token of this issuer is then good here. Tokens naming another audience are still refused.
   */
  allowMissing?: boolean;
}

/** Every key of an `AudiencePolicy`, for the verifiers' checks of their options. */
export const AUDIENCE_NAMES: OptionNames<AudiencePolicy> = { accept: true, allowMissing: true };

/** What a verifier learned from a token it accepts. */
export interface VerifiedToken {
  /** The issuer (`iss`); a verifier of one issuer may fill it in when the token does not say. */
  issuer: string;
  /** `sub`, when the token has one. */
  subject?: string;
  /** `client_id` (or `azp`), when the token has one. */
  clientId?: string;
  scopes: readonly string[];
  /** Expiry in milliseconds since the epoch (`exp` × 1000). */
  expiresAt?: number;
  /** The audiences the token names (`aud`, or an introspection answer's `aud` and `resource`). */
  audience: readonly string[];
  /** The claims, for the identity tools see. Never the token. */
  claims: Record<string, unknown>;
  /** How the guard checks `audience` for this token's issuer. Default: it must name the resource. */
  audiencePolicy?: AudiencePolicy;
  /** Until when (ms since the epoch) the verdict may be reused without asking again; never past `expiresAt`. */
  reuseUntil?: number;
}

/**
 * Checks bearer tokens. Throw `InvalidTokenError` to refuse one (401), `AuthorizationServerUnavailableError`
 * when the authorization server cannot be asked (503).
 */
export interface TokenVerifier {
  verify(token: string): VerifiedToken | Promise<VerifiedToken>;
  /** The issuers whose tokens it accepts: the metadata's `authorization_servers` by default. */
  readonly issuers: readonly string[];
}

/** A verifier written by the app: `undefined` refuses the token as invalid. */
export type VerifyToken = (token: string) => VerifiedToken | undefined | Promise<VerifiedToken | undefined>;

/** The audiences a claim names (`aud` may be one string or a list). */
export function audiencesOf(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === "string");
  return [];
}
