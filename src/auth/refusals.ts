// Why a token was refused, said without leaking anything about the token or the server: the same few
// descriptions for every verifier (with a finer detail that only the operator sees), and one error for an
// authorization server that cannot be reached.

import type { McpTokenRefusalReason } from "../features/authorization.ts";

/** The reasons a token is refused; each has one fixed `error_description`. */
export type RefusalReason = McpTokenRefusalReason;

const DESCRIPTIONS: Record<RefusalReason, string> = {
  malformed: "The access token is malformed",
  invalid: "The access token is invalid",
  expired: "The access token expired",
  not_yet_valid: "The access token is not valid yet",
  audience: "The access token was not issued for this resource",
};

/** The `error_description` of a refusal: fixed text, never the token or a library's message. */
export function describeRefusal(reason: RefusalReason): string {
  return DESCRIPTIONS[reason];
}

/**
 * Thrown by a verifier that refuses a token: the client gets a 401 with `error="invalid_token"` and the
 * reason's fixed description.
 *
 * @example
 * if (!session) throw new InvalidTokenError("invalid");
 */
export class InvalidTokenError extends Error {
  override name = "InvalidTokenError";
  /**
   * Whether the refusal is final for this token, so the guard may answer it again without asking (for a
   * minute). False when the same token could pass later: signed with a key the issuer has not published yet.
   */
  readonly final: boolean;
  /**
   * For a refusal that is not final: the earliest time (ms since the epoch) the same token could pass, so the
   * guard answers it again without asking until then (the keys cannot be fetched again before).
   */
  readonly retryAt?: number;
  /**
   * Why, finer than `reason`, for the operator only (`authRefused`): a fixed word such as `bad_signature` or
   * `unknown_key`, never the token or text taken from it. Default: the reason.
   */
  readonly detail: string;
  /** The issuer the token names, when the verifier is configured for it (for the operator only). */
  readonly issuer?: string;
  constructor(
    readonly reason: RefusalReason = "invalid",
    options: { final?: boolean; retryAt?: number; detail?: string; issuer?: string } = {},
  ) {
    super(DESCRIPTIONS[reason] ?? DESCRIPTIONS.invalid);
    this.final = options.final ?? true;
    if (options.retryAt !== undefined) this.retryAt = options.retryAt;
    this.detail = options.detail ?? reason;
    if (options.issuer !== undefined) this.issuer = options.issuer;
  }
}

/**
 * Thrown by a verifier that cannot reach its authorization server (down, slow, answering garbage): the
 * client gets a 503 it may retry, never a 401 that would send it back to log in.
 *
 * @example
 * throw new AuthorizationServerUnavailableError("introspection answered 502");
 */
export class AuthorizationServerUnavailableError extends Error {
  override name = "AuthorizationServerUnavailableError";
}
