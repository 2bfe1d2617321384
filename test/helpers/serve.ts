import { serve, type H3 } from "h3";
import { afterAll, beforeAll } from "vitest";

/** Serves `app` on an ephemeral 127.0.0.1 port for the file's tests; `url()` is its /mcp endpoint. */
export function useServedApp(app: H3): { url: () => URL } {
  let server: ReturnType<typeof serve> | undefined;
  let url: URL | undefined;
  beforeAll(async () => {
    server = serve(app, { port: 0, hostname: "127.0.0.1", silent: true });
    await server.ready();
    url = new URL("/mcp", server.url!);
  });
  afterAll(async () => {
    await server?.close(true);
  });
  return {
    url: () => {
      if (!url) throw new Error("the server is not started yet");
      return url;
    },
  };
}
