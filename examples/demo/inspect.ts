// `npm run inspect`: the demo with every task actor streamed to the Stately inspector.
// The relay (inspector-relay.ts) and this process bind to 127.0.0.1 and need no internet; the inspector
// UI the relay's page embeds is loaded from stately.ai, so viewing it needs a browser with internet.
import { createWebSocketInspector } from "@statelyai/inspect";
import { serve } from "h3";
import { createDemo } from "./app.ts";
import { startInspectorRelay } from "./inspector-relay.ts";

const port = Number(process.env.PORT ?? 3000);
const relay = await startInspectorRelay(Number(process.env.INSPECTOR_PORT ?? 8080));
const inspector = createWebSocketInspector({ url: relay.wsUrl });
const { app } = createDemo({ inspect: inspector.inspect });
const server = serve(app, { port, hostname: "127.0.0.1", silent: true, gracefulShutdown: false });
await server.ready();

let stopping = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, async () => {
    if (stopping) return;
    stopping = true;
    try {
      inspector.stop();
      await Promise.all([relay.stop(), server.close(true)]);
    } finally {
      process.exit(0);
    }
  });
}

// Printed once the signals are handled: whoever waits for this line may stop the process at once.
console.log(`h3-mcp demo listening on http://127.0.0.1:${port}/mcp, with the Stately inspector`);
console.log(`Open ${relay.url} in a browser (with internet, for the stately.ai UI) to watch each task as an actor.`);
