// The tests' MCP client over app.fetch is the store kit's own (src/tasks/testing/client.ts); raw
// requests for the tests that send what no conforming client would.
export { appFor, call, messages, modernRequest, roundRobin, TASKS, type CallOptions, type Fetcher } from "../../src/tasks/testing/client.ts";
export { PROTOCOL_VERSION as V } from "../../src/tasks/testing/client.ts";

export function rawRequest(body: string, headers: Record<string, string> = {}, method = "POST"): Request {
  return new Request("http://localhost/mcp", {
    method,
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: method === "GET" || method === "DELETE" ? undefined : body,
  });
}
