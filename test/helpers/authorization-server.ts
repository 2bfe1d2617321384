// A real OAuth 2.1 / OpenID Connect authorization server for the tests: oidc-provider (a certified
// OpenID provider) on a free 127.0.0.1 port, issuing RFC 9068 JWT access tokens for the MCP resources
// the tests name (its resource-indicators feature), opaque tokens for one resource (read through
// introspection), by client_credentials and by authorization_code with PKCE. Its keys can be rotated
// without a restart of the server the tests talk to.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, type JWK } from "jose";
import { createProvider, type Provider } from "./quiet-oidc-provider.ts";

// A token's exp is whole seconds after an iat rounded down: a 1 s lifetime can leave a few milliseconds of
// validity, and a loaded machine may use it too late. 2 s leaves at least one whole second, and
// is over within the 2.1 s the tests wait after using it.
const SHORT_TTL_S = 2;

/** Scopes the server grants. */
export const AS_SCOPES = ["mcp", "mcp:admin", "mcp:other"];

export interface AuthorizationServer {
  /** The issuer URL (`http://127.0.0.1:<port>`). */
  issuer: string;
  /** A confidential client allowed client_credentials (`client_secret_basic`). */
  client: { id: string; secret: string };
  /** Another confidential client: another subject. */
  otherClient: { id: string; secret: string };
  /** A client whose access tokens live one second. */
  shortLivedClient: { id: string; secret: string };
  /** A client whose access tokens carry `nbf` an hour ahead (issued by the server, not made by a test). */
  futureClient: { id: string; secret: string };
  /** A public client for authorization_code with PKCE; its redirect URI. */
  publicClient: { id: string; redirectUri: string };
  /** The MCP server's own credentials for introspection. */
  introspector: { id: string; secret: string };
  /** The resource whose tokens are opaque (introspection only). */
  opaqueResource: string;
  /** An access token by client_credentials for `resource` with `scope`. */
  token(resource: string, scope: string, client?: { id: string; secret: string }): Promise<string>;
  /** Signs from now on with a new key, still publishing the old one (`dropOld`: publishing only the new one). */
  rotateKeys(options?: { dropOld?: boolean }): Promise<void>;
  /** Requests to the JWKS endpoint so far. */
  readonly jwksRequests: number;
  /** Requests to the introspection endpoint so far. */
  readonly introspections: number;
  /**
   * Plays the user's browser on an authorization URL: signs in as `login`, consents to what was asked,
   * and returns the parameters the authorization server sent to the redirect URI (`code`, `state`, `iss`).
   */
  authorizeAs(authorizationUrl: URL | string, login: string): Promise<URLSearchParams>;
  /** Revokes a token (RFC 7009), as its client. */
  revoke(token: string, client?: { id: string; secret: string }): Promise<void>;
  /** Answers every request with 503 (or not), to play an authorization server that is down. */
  setDown(down: boolean): void;
  /** Holds every answer this long (ms), to play a slow one. */
  setDelay(ms: number): void;
  close(): Promise<void>;
}

/** Starts an authorization server issuing tokens for the given resources (and `opaqueResource`). */
export async function startAuthorizationServer(): Promise<AuthorizationServer> {
  let current: Provider | undefined;
  let jwksRequests = 0;
  let introspections = 0;
  let down = false;
  let delay = 0;
  const server: Server = createServer((req, res) => {
    if (req.url?.startsWith("/jwks")) jwksRequests++;
    if (req.url?.startsWith("/token/introspection")) introspections++;
    const answer = () => {
      if (down) {
        res.writeHead(503).end();
        return;
      }
      current!.callback()(req, res);
    };
    if (delay) setTimeout(answer, delay);
    else answer();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const opaqueResource = `${issuer}/opaque-resource`;

  const client = { id: "mcp-client", secret: "mcp-client-secret-0123456789abcdef" };
  const otherClient = { id: "other-client", secret: "other-client-secret-0123456789abcdef" };
  const shortLivedClient = { id: "short-lived", secret: "short-lived-secret-0123456789abcdef" };
  const futureClient = { id: "future", secret: "future-secret-0123456789abcdef012345" };
  const introspector = { id: "mcp-server", secret: "mcp-server-secret-0123456789abcdef" };
  const publicClient = { id: "mcp-app", redirectUri: "http://127.0.0.1:1/callback" };

  let keys: JWK[] = [await newKey()];
  const start = () => {
    current = createProvider(issuer, {
      clients: [
        confidential(client),
        confidential(otherClient),
        confidential(shortLivedClient),
        confidential(futureClient),
        { ...confidential(introspector), grant_types: [] },
        {
          client_id: publicClient.id,
          token_endpoint_auth_method: "none",
          grant_types: ["authorization_code"],
          response_types: ["code"],
          redirect_uris: [publicClient.redirectUri],
          scope: `openid ${AS_SCOPES.join(" ")}`,
        },
      ],
      jwks: { keys },
      // EC keys only: ID tokens must be signed with one of them too.
      clientDefaults: { id_token_signed_response_alg: "ES256" },
      scopes: ["openid", ...AS_SCOPES],
      pkce: { required: () => true },
      findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub }) }),
      features: {
        clientCredentials: { enabled: true },
        // Only the MCP server's own client may ask about tokens.
        introspection: { enabled: true, allowedPolicy: async (_ctx, caller) => caller.clientId === introspector.id },
        revocation: { enabled: true },
        devInteractions: { enabled: true },
        resourceIndicators: {
          enabled: true,
          defaultResource: (_ctx, _client, oneOf) => oneOf ?? undefined!,
          useGrantedResource: () => true,
          getResourceServerInfo: (_ctx, resource, who) => ({
            scope: AS_SCOPES.join(" "),
            audience: resource,
            accessTokenTTL: who.clientId === shortLivedClient.id ? SHORT_TTL_S : 300,
            accessTokenFormat: resource === opaqueResource ? "opaque" : "jwt",
            jwt: { sign: { alg: "ES256" } },
          }),
        },
      },
      extraTokenClaims: (ctx, token) =>
        (token as { clientId?: string }).clientId === futureClient.id ? { nbf: Math.floor(Date.now() / 1000) + 3600 } : undefined,
      ttl: { AccessToken: 300, ClientCredentials: (ctx, token, who) => (who.clientId === shortLivedClient.id ? SHORT_TTL_S : 300) },
    });
    current.on("server_error", (_ctx, error) => console.error("authorization server error:", error));
  };
  start();

  return {
    issuer,
    client,
    otherClient,
    shortLivedClient,
    futureClient,
    publicClient,
    introspector,
    opaqueResource,
    async token(resource, scope, who = client) {
      const res = await fetch(`${issuer}/token`, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          authorization: basic(who),
        },
        body: new URLSearchParams({ grant_type: "client_credentials", resource, scope }),
      });
      const body = (await res.json()) as { access_token?: string };
      if (!res.ok || !body.access_token) throw new Error(`token request failed: ${res.status} ${JSON.stringify(body)}`);
      return body.access_token;
    },
    async rotateKeys(options = {}) {
      keys = options.dropOld ? [await newKey()] : [await newKey(), ...keys];
      start();
    },
    get jwksRequests() {
      return jwksRequests;
    },
    get introspections() {
      return introspections;
    },
    authorizeAs: (authorizationUrl, login) => signInAndConsent(new URL(authorizationUrl), login),
    async revoke(token, who = client) {
      const res = await fetch(`${issuer}/token/revocation`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", authorization: basic(who) },
        body: new URLSearchParams({ token }),
      });
      if (!res.ok) throw new Error(`revocation failed: ${res.status}`);
    },
    setDown(value) {
      down = value;
    },
    setDelay(ms) {
      delay = ms;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())).then(() => undefined),
  };
}

/**
 * A browser without a screen: follows the authorization server's redirects with its cookies, answers the
 * sign-in form (oidc-provider's development interactions take any login) and the consent form, and stops
 * at the first redirect that leaves the authorization server.
 */
async function signInAndConsent(start: URL, login: string): Promise<URLSearchParams> {
  const cookies = new Map<string, string>();
  let next: { url: URL; form?: URLSearchParams } = { url: start };
  for (let step = 0; step < 20; step++) {
    const res = await fetch(next.url, {
      method: next.form ? "POST" : "GET",
      redirect: "manual",
      headers: {
        cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join("; "),
        ...(next.form ? { "content-type": "application/x-www-form-urlencoded" } : {}),
      },
      body: next.form,
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const at = pair!.indexOf("=");
      cookies.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
    const location = res.headers.get("location");
    if (location) {
      const url = new URL(location, next.url);
      if (url.origin !== start.origin) return url.searchParams;
      next = { url };
      continue;
    }
    const page = await res.text();
    if (res.status !== 200) throw new Error(`authorization failed: ${res.status} ${page.slice(0, 300)}`);
    const prompt = /name="prompt" value="(\w+)"/.exec(page)?.[1];
    const form = new URLSearchParams({ prompt: prompt ?? "" });
    if (prompt === "login") form.set("login", login), form.set("password", "any");
    else if (prompt !== "consent") throw new Error(`unexpected authorization page: ${page.slice(0, 300)}`);
    next = { url: next.url, form };
  }
  throw new Error("authorization did not reach the redirect URI");
}

function basic(who: { id: string; secret: string }): string {
  return `Basic ${Buffer.from(`${who.id}:${who.secret}`).toString("base64")}`;
}

function confidential(who: { id: string; secret: string }) {
  return {
    client_id: who.id,
    client_secret: who.secret,
    grant_types: ["client_credentials"],
    response_types: [],
    redirect_uris: [],
    token_endpoint_auth_method: "client_secret_basic",
    scope: AS_SCOPES.join(" "),
  };
}

let kids = 0;
async function newKey(): Promise<JWK> {
  const { privateKey } = await generateKeyPair("ES256", { extractable: true });
  return { ...(await exportJWK(privateKey)), kid: `key-${++kids}-${Date.now().toString(36)}`, alg: "ES256", use: "sig" };
}
