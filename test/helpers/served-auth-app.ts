// For tests of real clients against a protected server on real HTTP: a real authorization server and the auth
// test app (test/fixtures/auth-app.ts) served on an ephemeral port whose URL is its canonical resource, and a fetch
// that records every exchange a client makes, with the MCP server and with the authorization server alike.
import { H3 } from "h3";
import { afterAll, beforeAll } from "vitest";
import { authApp } from "../fixtures/auth-app.ts";
import { startAuthorizationServer, type AuthorizationServer } from "./authorization-server.ts";
import { useServedApp } from "./serve.ts";

/** Call at the top of a test file: `as()` and `url()` are ready in the tests. */
export function useServedAuthApp(): { as: () => AuthorizationServer; url: () => URL } {
  let as: AuthorizationServer | undefined;
  let inner: H3 | undefined;
  // The resource is the URL the server is reached at, known once it listens: the app is made then.
  const served = useServedApp(new H3().all("/**", (event) => inner!.fetch(event.req)));
  beforeAll(async () => {
    as = await startAuthorizationServer();
    inner = authApp({ issuer: as.issuer, auth: { resource: served.url().href } }).app;
  });
  afterAll(() => as?.close());
  return { as: () => as!, url: served.url };
}

/** One HTTP exchange a client made. */
export interface Exchange {
  method: string;
  url: URL;
  status: number;
  authorization?: string;
  mcpMethod?: string;
  session?: string;
  /** The form it posted (token requests). */
  form?: URLSearchParams;
  /** The answer's WWW-Authenticate. */
  challenge?: string;
}

/** A fetch that records each exchange in `wire`, in order. */
export function recordExchanges(): { wire: Exchange[]; recordingFetch: typeof fetch } {
  const wire: Exchange[] = [];
  const recordingFetch: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    const headers = new Headers(init?.headers);
    wire.push({
      method: init?.method ?? "GET",
      url: new URL(String(input instanceof Request ? input.url : input)),
      status: res.status,
      authorization: headers.get("authorization") ?? undefined,
      mcpMethod: headers.get("mcp-method") ?? undefined,
      session: headers.get("mcp-session-id") ?? undefined,
      form: init?.body instanceof URLSearchParams ? init.body : undefined,
      challenge: res.headers.get("www-authenticate") ?? undefined,
    });
    return res;
  };
  return { wire, recordingFetch };
}
