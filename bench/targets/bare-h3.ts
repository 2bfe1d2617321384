// (a) The ceiling: an h3 v2 app whose POST /mcp parses the JSON body and answers a fixed JSON-RPC
// result (bench/lib/bare-app.ts). Whatever an h3 library adds costs on top of this.
import { serve } from "h3";
import { createBareApp } from "../lib/bare-app.ts";
import { announceReady, exitOnSignal, HOST, targetPort } from "../lib/target.ts";

const server = serve(createBareApp(), { port: targetPort(), hostname: HOST, silent: true });
await server.ready();
exitOnSignal(() => server.close(true));
announceReady({ target: "bare-h3" });
