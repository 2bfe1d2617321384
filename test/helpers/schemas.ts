// Shape checks against the official schemas published on npm: the SDK core package for the
// protocol, the ext-tasks package for task shapes. The core zod schemas are lenient about the
// 2026-07-28 additions, so the fields that era makes required are checked here as well.
import * as core from "@modelcontextprotocol/core";
import * as tasks from "@modelcontextprotocol/ext-tasks/core/v2";
import { expect } from "vitest";
import type { TestClientOptions } from "../../src/tasks/testing/test-types.ts";

type Schema = { safeParse(v: unknown): { success: boolean; error?: { issues: unknown[] } } };

export function expectShape(schema: Schema, value: unknown): void {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new Error(`Shape check failed: ${JSON.stringify(parsed.error?.issues)}\n${JSON.stringify(value)}`);
}

/** A JSON-RPC success response whose result is `complete` and conforms to `schema`. */
export function expectResult(message: any, schema: Schema): any {
  expectShape(core.JSONRPCResultResponseSchema as Schema, message);
  expect(message.result.resultType).toBe("complete");
  expectShape(schema, message.result);
  return message.result;
}

/** A cacheable result (discover, lists, resources/read) carries both cache hints. */
export function expectCacheable(result: any): void {
  expect(Number.isInteger(result.ttlMs) && result.ttlMs >= 0).toBe(true);
  expect(["public", "private"]).toContain(result.cacheScope);
}

export function expectError(message: any, code: number): any {
  expectShape(core.JSONRPCErrorResponseSchema as Schema, message);
  expect(message.error.code).toBe(code);
  return message.error;
}

export const S = {
  discover: core.DiscoverResultSchema as Schema,
  listTools: core.ListToolsResultSchema as Schema,
  callTool: core.CallToolResultSchema as Schema,
  getPrompt: core.GetPromptResultSchema as Schema,
  initialize: core.InitializeResultSchema as Schema,
  listenAck: core.SubscriptionsAcknowledgedNotificationSchema as Schema,
  progress: core.ProgressNotificationSchema as Schema,
  logMessage: core.LoggingMessageNotificationSchema as Schema,
  createTask: tasks.CreateTaskResultV2Schema as Schema,
  getTask: tasks.GetTaskResultV2Schema as Schema,
  detailedTask: tasks.DetailedTaskV2Schema as Schema,
  updateTask: tasks.UpdateTaskResultV2Schema as Schema,
  cancelTask: tasks.CancelTaskResultV2Schema as Schema,
  taskNotification: tasks.TaskStatusNotificationV2Schema as Schema,
  inputRequired: tasks.InputRequiredCallToolResultV2Schema as Schema,
};

/** The `_meta` key every 2026-07-28 result carries (test/wire/server-info.test.ts checks it is there). */
export const SERVER_INFO = "io.modelcontextprotocol/serverInfo";

/** A result's own fields: without the server's serverInfo `_meta`, for tests that compare a result exactly. */
export function ownFields(result: any): any {
  if (!result?._meta || !(SERVER_INFO in result._meta)) return result;
  const { [SERVER_INFO]: _info, ...meta } = result._meta;
  const { _meta: _all, ...fields } = result;
  return Object.keys(meta).length ? { ...fields, _meta: meta } : fields;
}

/** The store kit's shape checks (h3-mcp/tasks/testing), made against the official schemas. */
export function checkTaskShape(kind: "createTask" | "getTask" | "updateTask" | "cancelTask" | "taskNotification" | "errorResponse", value: unknown): void {
  expectShape(kind === "errorResponse" ? (core.JSONRPCErrorResponseSchema as Schema) : S[kind], value);
}

/** createTestClient's `onMessage` that checks every message it reads against the official schemas, by the method it answered. */
export function officialShapes(): Required<Pick<TestClientOptions, "onMessage">> & { checked: number } {
  const state = {
    onMessage(message: any, { method }: { method: string }) {
      state.checked++;
      if ("error" in message) return expectShape(core.JSONRPCErrorResponseSchema as Schema, message);
      if ("method" in message) {
        if (message.method === "notifications/tasks") return expectShape(S.taskNotification, message);
        if (message.method === "notifications/progress") return expectShape(S.progress, message);
        return expectShape(S.listenAck, message);
      }
      expectShape(core.JSONRPCResultResponseSchema as Schema, message);
      const result = message.result;
      const schema =
        method === "tools/call"
          ? { complete: S.callTool, task: S.createTask, input_required: S.inputRequired }[result.resultType as string]
          : { "tools/list": S.listTools, "tasks/get": S.getTask, "tasks/update": S.updateTask, "tasks/cancel": S.cancelTask }[method];
      expect(schema, `a schema for ${method} (${result.resultType})`).toBeDefined();
      expectShape(schema!, result);
    },
  } as Required<Pick<TestClientOptions, "onMessage">> & { checked: number };
  // The count of messages checked, kept beside the option: not enumerable, since the client refuses a key it does not have.
  Object.defineProperty(state, "checked", { value: 0, writable: true, enumerable: false });
  return state;
}
