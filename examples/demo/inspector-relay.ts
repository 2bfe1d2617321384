// The relay between this process and the Stately inspector in a browser: a page that embeds the
// inspector UI and a WebSocket that fans each inspection event out to every page. It binds to
// 127.0.0.1 only: inspection events carry task inputs and results, which are nobody else's business.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { WebSocket, WebSocketServer } from "ws";

const INSPECTOR_UI = "https://stately.ai/inspect";
/** Events kept for a page that opens late. */
const REPLAY = 200;

function page(wsUrl: string): string {
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>h3-mcp tasks in the Stately inspector</title>
<style>html,body,iframe{margin:0;border:0;width:100%;height:100%}</style></head>
<body><iframe id="ui" src="${INSPECTOR_UI}"></iframe>
<script>
  const ui = document.getElementById("ui");
  let ready = false;
  const waiting = [];
  addEventListener("message", (e) => {
    if (e.data?.type !== "@statelyai.connected") return;
    ready = true;
    for (const data of waiting.splice(0)) ui.contentWindow.postMessage(data, "*");
  });
  new WebSocket(${JSON.stringify(wsUrl)}).onmessage = (e) => {
    const data = JSON.parse(e.data);
    if (ready) ui.contentWindow.postMessage(data, "*");
    else waiting.push(data);
  };
</script></body></html>`;
}

/** Starts the relay on 127.0.0.1:`port` (0 for any free port). */
export async function startInspectorRelay(port: number) {
  let html = "";
  const http = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(html);
  });
  const wss = new WebSocketServer({ server: http });
  const recent: string[] = [];
  wss.on("connection", (ws) => {
    for (const msg of recent) ws.send(msg);
    ws.on("message", (data) => {
      const msg = data.toString();
      recent.push(msg);
      if (recent.length > REPLAY) recent.shift();
      for (const peer of wss.clients) if (peer !== ws && peer.readyState === WebSocket.OPEN) peer.send(msg);
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(port, "127.0.0.1", resolve);
  });
  const { port: bound } = http.address() as AddressInfo;
  html = page(`ws://127.0.0.1:${bound}`);
  return {
    url: `http://127.0.0.1:${bound}`,
    wsUrl: `ws://127.0.0.1:${bound}`,
    async stop() {
      for (const peer of wss.clients) peer.terminate();
      wss.close();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}
