// The prompt fixtures (conformance/fixtures.md, table B "Prompts" and the completion request).
import { definePrompt, mcpElicit, mcpInput, mcpInputRequired } from "h3-mcp";
import { z } from "zod";
import { elicited } from "./answers.ts";
import { RED_PIXEL_PNG } from "./media.ts";

export const simplePrompt = definePrompt({
  name: "test_simple_prompt",
  description: "A prompt without arguments",
  handler: () => "This is a simple prompt for testing.",
});

const ARG1_SUGGESTIONS = ["test", "testValue1", "testing", "example", "sample"];

export const promptWithArguments = definePrompt({
  name: "test_prompt_with_arguments",
  description: "A prompt with two required arguments (arg1 offers completions)",
  arguments: z.object({
    arg1: z.string().describe("First test argument"),
    arg2: z.string().describe("Second test argument"),
  }),
  // completion/complete for arg1: the suggestions that start with what was typed so far.
  complete: { arg1: (value) => ARG1_SUGGESTIONS.filter((s) => s.startsWith(value)) },
  handler: (_event, { arg1, arg2 }) => `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`,
});

export const promptWithEmbeddedResource = definePrompt({
  name: "test_prompt_with_embedded_resource",
  description: "A prompt that embeds the resource it is given",
  arguments: z.object({ resourceUri: z.string().describe("URI of the resource to embed") }),
  handler: (_event, { resourceUri }) => [
    {
      role: "user",
      content: { type: "resource", resource: { uri: resourceUri, mimeType: "text/plain", text: "Embedded resource content for testing." } },
    },
    { role: "user", content: { type: "text", text: "Please process the embedded resource above." } },
  ],
});

export const promptWithImage = definePrompt({
  name: "test_prompt_with_image",
  description: "A prompt that carries an image",
  handler: () => [
    { role: "user", content: { type: "image", data: RED_PIXEL_PNG, mimeType: "image/png" } },
    { role: "user", content: { type: "text", text: "Please analyze the image above." } },
  ],
});

const askContext = mcpElicit({
  message: "What context should the prompt use?",
  requestedSchema: { type: "object", properties: { context: { type: "string" } }, required: ["context"] },
});

export const inputRequiredPrompt = definePrompt({
  name: "test_input_required_result_prompt",
  description: "A prompt that first asks the user for context (MRTR on prompts/get)",
  handler: (event) => {
    // MRTR is not only for tools: prompts/get may answer input_required too.
    const answer = elicited(askContext, mcpInput(event, { user_context: askContext }).answers.user_context);
    if (answer === undefined) return mcpInputRequired(event, { user_context: askContext });
    const context = answer === "refused" ? "no particular context" : answer.context;
    return `Use this context: ${context}`;
  },
});

export const prompts = [simplePrompt, promptWithArguments, promptWithEmbeddedResource, promptWithImage, inputRequiredPrompt];
