// Client answers are unvalidated input: read them defensively, and ask again when one is malformed.
import { mcpValidateElicitation, type CreateMessageResult, type ElicitResult, type InputRequest, type ListRootsResult } from "h3-mcp";

/**
 * An elicitation answer: the accepted content when it matches the schema that asked, "refused" for a
 * decline or cancel, undefined when it is missing or malformed (the caller then asks again).
 */
export function elicited<C>(request: InputRequest<ElicitResult<C>>, answer: unknown): C | "refused" | undefined {
  if (typeof answer !== "object" || answer === null) return undefined;
  const action = (answer as { action?: unknown }).action;
  if (action === "decline" || action === "cancel") return "refused";
  if (action !== "accept") return undefined;
  try {
    return mcpValidateElicitation(request, answer as ElicitResult<C>);
  } catch {
    return undefined;
  }
}

/** The text of a sampling answer, or undefined when the answer is not a CreateMessageResult. */
export function sampledText(answer: unknown): string | undefined {
  if (typeof answer !== "object" || answer === null) return undefined;
  const content = (answer as CreateMessageResult).content;
  const blocks = Array.isArray(content) ? content : [content];
  const texts = blocks.filter((b) => b?.type === "text" && typeof b.text === "string").map((b) => b.text as string);
  return texts.length ? texts.join("\n") : undefined;
}

/** The root URIs of a roots/list answer, or undefined when the answer is not a ListRootsResult. */
export function rootUris(answer: unknown): string[] | undefined {
  const roots = (answer as ListRootsResult | null | undefined)?.roots;
  if (!Array.isArray(roots)) return undefined;
  return roots.filter((r) => typeof r?.uri === "string").map((r) => r.uri);
}
