// Reading answers: the client's `inputResponses` on a retry, kept only for the keys asked and only
// with the outer shape of their result.
import type { H3Event } from "h3";
import { getMcpContext } from "../request-context.ts";
import type { InputRequiredResult, JsonObject } from "../../protocol/types.ts";
import { mcpInputRequired, type InputAnswers, type InputRequest } from "./input-requests.ts";

/**
 * The client's answers to these requests on this retry, typed by the requests that asked.
 * Keys this server did not ask for are dropped, and so are answers without the outer shape of
 * their result (an elicitation answer without a valid `action`, say). What remains is still
 * unvalidated client input: check the content with `mcpValidateElicitation`.
 */
export function mcpInputResponses<R extends Record<string, InputRequest>>(event: H3Event, requests: R): InputAnswers<R> {
  const sent = getMcpContext(event).params.inputResponses;
  const out: Record<string, unknown> = {};
  if (sent && typeof sent === "object" && !Array.isArray(sent)) {
    for (const key of Object.keys(requests)) {
      const value = (sent as JsonObject)[key];
      if (hasAnswerShape(requests[key]!.method, value)) out[key] = value;
    }
  }
  return out as InputAnswers<R>;
}

/**
 * Whether a client's answer has the outer shape of a result for that request kind. An answer that
 * does not is treated as missing, so the request is asked again; the content inside stays unvalidated.
 */
export function hasAnswerShape(method: string, value: unknown): boolean {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const v = value as JsonObject;
  switch (method) {
    case "elicitation/create":
      return (
        (v.action === "accept" || v.action === "decline" || v.action === "cancel") &&
        (v.content === undefined || (typeof v.content === "object" && v.content !== null && !Array.isArray(v.content)))
      );
    case "sampling/createMessage":
      return typeof v.role === "string" && typeof v.content === "object" && v.content !== null;
    case "roots/list":
      return Array.isArray(v.roots);
    default:
      return true;
  }
}

/**
 * One-call MRTR: the typed answers, and whether every request has one. When not, return `ask()`.
 *
 * @example
 * const input = mcpInput(event, { name: askName });
 * if (!input.complete) return input.ask();
 * return `Hello, ${input.answers.name?.content?.name}`;
 */
export function mcpInput<R extends Record<string, InputRequest>>(
  event: H3Event,
  requests: R,
): { complete: boolean; answers: InputAnswers<R>; ask(options?: { state?: unknown }): InputRequiredResult } {
  const answers = mcpInputResponses(event, requests);
  const missing: Record<string, InputRequest> = {};
  for (const key of Object.keys(requests)) if (!(key in answers)) missing[key] = requests[key]!;
  return {
    complete: Object.keys(missing).length === 0,
    answers,
    ask: (options) => mcpInputRequired(event, missing, options),
  };
}
