// `npm run inspect`: the demo with every task actor streamed to the Stately inspector.
// The relay (a local WebSocket server) and this process need no internet; the inspector UI the
// relay's page embeds is loaded from stately.ai, so viewing it needs a browser with internet.
import { createWebSocketInspector } from "@statelyai/inspect";
import { createInspectorServer } from "@statelyai/inspect/server";
import { serve } from "h3";
import { createDemo } from "./app.ts";

const port = Number(process.env.PORT ?? 3000);
const inspectorPort = Number(process.env.INSPECTOR_PORT ?? 8080);
const relay = createInspectorServer({ port: inspectorPort, autoOpen: process.env.INSPECTOR_OPEN === "1" });
const inspector = createWebSocketInspector({ url: `ws://127.0.0.1:${inspectorPort}` });
const { app } = createDemo({ inspect: inspector.inspect });
const server = serve(app, { port, hostname: "127.0.0.1", silent: true });
await server.ready();

console.log(`h3-mcp demo with the Stately inspector on http://127.0.0.1:${port}/mcp`);
console.log(`Open http://localhost:${inspectorPort} in a browser (with internet, for the stately.ai UI) to watch each task as an actor.`);
process.on("SIGINT", () => {
  inspector.stop();
  relay.stop();
  process.exit(0);
});
