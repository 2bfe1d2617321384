// Raw 2026-07-28 requests for the bench: a body string and the headers a conforming client sends,
// so the load generator replays bytes instead of building objects per request.

import { NAME_PARAM } from "../../test/helpers/name-params.ts";

export const VERSION = "2026-07-28";
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

export interface RawRequest {
  method: "POST";
  path: string;
  headers: Record<string, string>;
  body: string;
}

export interface BuildOptions {
  id?: number | string;
  /** Declare the tasks extension in this request's client capabilities. */
  tasks?: boolean;
  /** Declare the roots capability (what task_ask asks for). */
  roots?: boolean;
  path?: string;
}

/** A modern request: `_meta` envelope in the body, mirrored standard headers. */
export function mcpRequest(method: string, params: Record<string, unknown> = {}, opts: BuildOptions = {}): RawRequest {
  const caps = { ...(opts.tasks && { extensions: { [TASKS_EXTENSION]: {} } }), ...(opts.roots && { roots: {} }) };
  const body = {
    jsonrpc: "2.0",
    id: opts.id ?? 1,
    method,
    params: {
      ...params,
      _meta: {
        "io.modelcontextprotocol/protocolVersion": VERSION,
        "io.modelcontextprotocol/clientCapabilities": caps,
        "io.modelcontextprotocol/clientInfo": { name: "h3-mcp-bench", version: "0.0.0" },
      },
    },
  };
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": VERSION,
    "mcp-method": method,
  };
  const nameParam = NAME_PARAM[method];
  if (nameParam !== undefined && typeof params[nameParam] === "string") headers["mcp-name"] = params[nameParam] as string;
  return { method: "POST", path: opts.path ?? "/mcp", headers, body: JSON.stringify(body) };
}

/** The same request as a web `Request`, for in-process `app.fetch`. */
export function toWebRequest(raw: RawRequest, origin = "http://127.0.0.1"): Request {
  return new Request(origin + raw.path, { method: raw.method, headers: raw.headers, body: raw.body });
}

export const ECHO_TEXT = "hello";

export const requests = {
  discover: () => mcpRequest("server/discover"),
  toolsList: () => mcpRequest("tools/list"),
  echo: () => mcpRequest("tools/call", { name: "echo", arguments: { text: ECHO_TEXT } }),
  createTask: () => mcpRequest("tools/call", { name: "task_echo", arguments: { text: ECHO_TEXT } }, { tasks: true }),
  hangTask: () => mcpRequest("tools/call", { name: "task_hang", arguments: {} }, { tasks: true }),
  askTask: () => mcpRequest("tools/call", { name: "task_ask", arguments: {} }, { tasks: true, roots: true }),
  getTask: (taskId: string) => mcpRequest("tasks/get", { taskId }, { tasks: true }),
  /** Answers task_ask's question (wire key `r`). */
  answerTask: (taskId: string) => mcpRequest("tasks/update", { taskId, inputResponses: { r: { roots: [] } } }, { tasks: true }),
  cancelTask: (taskId: string) => mcpRequest("tasks/cancel", { taskId }, { tasks: true }),
};
