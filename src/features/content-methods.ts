// prompts/get, resources/read and completion/complete, for both eras.
import { ErrorCode, invalidParams, McpJsonRpcError } from "../protocol/errors.ts";
import { requireScopes, verifyRequestState, type MethodCall } from "./call-context.ts";
import { assertPromptArguments, toPromptResult, type Completer } from "./prompts.ts";
import { toReadResult } from "./resources.ts";
import { validateNow } from "../protocol/schema.ts";
import type { JsonObject } from "../protocol/types.ts";

export async function getPrompt(call: MethodCall): Promise<JsonObject> {
  const { event, server, params, ctx } = call;
  const name = params.name;
  if (typeof name !== "string") throw invalidParams("prompts/get needs params.name");
  const prompt = server.prompts.get(name);
  if (!prompt) throw invalidParams(`Unknown prompt: ${name}`);
  ctx.target = name;
  requireScopes(call, prompt.def.scopes);
  verifyRequestState(call);
  const args = await validateNow(prompt.arguments, assertPromptArguments(params.arguments), `arguments for prompt ${name}`);
  const result = toPromptResult(await prompt.def.handler(event, args as never));
  if (!result) throw new McpJsonRpcError(ErrorCode.InternalError, `Prompt ${name} returned something that is not a prompt result`);
  return result;
}

// A resource that needs scopes is read under them: no cache may share it with a caller who lacks them.
const PRIVATE = { cacheScope: "private" } as const;

export async function readResource(call: MethodCall): Promise<JsonObject> {
  const { event, server, params } = call;
  const uri = params.uri;
  if (typeof uri !== "string") throw invalidParams("resources/read needs params.uri");
  let value: unknown;
  let mimeType: string | undefined;
  let cache = server.cache;
  const fixed = server.resources.get(uri);
  if (fixed) {
    requireScopes(call, fixed.scopes);
    verifyRequestState(call);
    value = await fixed.read(event, uri);
    mimeType = fixed.mimeType;
    cache = { ...cache, ...fixed.cache, ...(fixed.scopes?.length && PRIVATE) };
  } else {
    let found = false;
    for (const template of server.templates) {
      const variables = template.matcher.match(uri);
      if (!variables) continue;
      requireScopes(call, template.def.scopes);
      verifyRequestState(call);
      value = await template.def.read(event, uri, variables);
      mimeType = template.def.mimeType;
      cache = { ...cache, ...template.def.cache, ...(template.def.scopes?.length && PRIVATE) };
      found = true;
      break;
    }
    if (!found) throw invalidParams("Resource not found", { uri });
  }
  const result = toReadResult(value, uri, mimeType);
  if (!result) throw new McpJsonRpcError(ErrorCode.InternalError, `Reading ${uri} gave something that is not resource contents`);
  if (result.resultType === "input_required") return result;
  if (!(result.contents as unknown[]).length) throw invalidParams("Resource not found", { uri });
  // A retry that carried answers or state is specific to this exchange: never let it be cached.
  const retry = params.inputResponses !== undefined || params.requestState !== undefined;
  return {
    resultType: "complete",
    ...result,
    ttlMs: retry ? 0 : cache.ttlMs,
    cacheScope: retry ? "private" : cache.cacheScope,
  };
}

const MAX_COMPLETIONS = 100;

export async function complete(call: MethodCall): Promise<JsonObject> {
  const { event, server, params } = call;
  const ref = params.ref as JsonObject | undefined;
  const argument = params.argument as JsonObject | undefined;
  if (!ref || typeof ref !== "object" || !argument || typeof argument.name !== "string") {
    throw invalidParams("completion/complete needs ref and argument.name");
  }
  const value = typeof argument.value === "string" ? argument.value : "";
  let completers: Record<string, Completer> | undefined;
  if (ref.type === "ref/prompt") {
    if (typeof ref.name !== "string") throw invalidParams("ref.name must be a string");
    const prompt = server.prompts.get(ref.name);
    if (!prompt) throw invalidParams(`Unknown prompt: ${ref.name}`);
    requireScopes(call, prompt.def.scopes);
    completers = prompt.def.complete;
  } else if (ref.type === "ref/resource") {
    if (typeof ref.uri !== "string") throw invalidParams("ref.uri must be a string");
    const template = server.templates.find((t) => t.def.uriTemplate === ref.uri);
    if (!template && !server.resources.has(ref.uri)) throw invalidParams("Resource not found", { uri: ref.uri });
    requireScopes(call, (template?.def ?? server.resources.get(ref.uri))?.scopes);
    completers = template?.def.complete;
  } else {
    throw invalidParams("ref.type must be ref/prompt or ref/resource");
  }
  // Own keys only: an argument called "toString" must not find Object.prototype's.
  const completer = completers && Object.hasOwn(completers, argument.name) ? completers[argument.name] : undefined;
  const sent = (params.context as { arguments?: unknown } | undefined)?.arguments;
  const context = typeof sent === "object" && sent !== null && !Array.isArray(sent) ? (sent as Record<string, string>) : {};
  const suggested = completer ? await completer(value, { arguments: context, event }) : [];
  const all = Array.isArray(suggested) ? suggested.filter((v): v is string => typeof v === "string") : [];
  const values = all.slice(0, MAX_COMPLETIONS);
  const completion: JsonObject = { values, total: all.length, hasMore: all.length > values.length };
  return { resultType: "complete", completion };
}
