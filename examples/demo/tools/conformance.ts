// The core tool fixtures the conformance suite calls by name (conformance/fixtures.md, table B).
// Order matters: the suite calls the FIRST listed tool with `{}` (http-header-validation), so
// test_simple_text leads, and test_x_mcp_header must stay the only tool with an `x-mcp-header` property.
import { defineTool, mcpElicit, mcpInput, mcpListChanged, mcpLog, mcpProgress, mcpSample } from "h3-mcp";
import { z } from "zod";
import { RED_PIXEL_PNG, SILENT_WAV } from "../media.ts";
import { sleep } from "../sleep.ts";

export const simpleTextTool = defineTool({
  name: "test_simple_text",
  description: "Returns a simple text response",
  handler: () => "This is a simple text response for testing.",
});

export const imageContentTool = defineTool({
  name: "test_image_content",
  description: "Returns a 1x1 PNG image",
  handler: () => ({ content: [{ type: "image", data: RED_PIXEL_PNG, mimeType: "image/png" }] }),
});

export const audioContentTool = defineTool({
  name: "test_audio_content",
  description: "Returns a short WAV clip",
  // The suite checks the mimeType exactly: audio/wav, not audio/x-wav.
  handler: () => ({ content: [{ type: "audio", data: SILENT_WAV, mimeType: "audio/wav" }] }),
});

export const embeddedResourceTool = defineTool({
  name: "test_embedded_resource",
  description: "Returns an embedded text resource",
  handler: () => ({
    content: [
      {
        type: "resource",
        resource: { uri: "test://embedded-resource", mimeType: "text/plain", text: "This is an embedded resource content." },
      },
    ],
  }),
});

export const multipleContentTool = defineTool({
  name: "test_multiple_content_types",
  description: "Returns text, an image and an embedded resource together",
  handler: () => ({
    content: [
      { type: "text", text: "Multiple content types test:" },
      { type: "image", data: RED_PIXEL_PNG, mimeType: "image/png" },
      {
        type: "resource",
        resource: { uri: "test://mixed-content-resource", mimeType: "application/json", text: '{"test":"data","value":123}' },
      },
    ],
  }),
});

export const progressTool = defineTool({
  name: "test_tool_with_progress",
  description: "Reports progress 0, 50 and 100 of 100, about 50 ms apart",
  handler: async (event) => {
    // Progress goes out only when the request carried a progressToken; the delays run either way.
    mcpProgress(event, 0, 100);
    await sleep(50);
    mcpProgress(event, 50, 100);
    await sleep(50);
    mcpProgress(event, 100, 100);
    return "Progress reported: 0, 50, 100 of 100.";
  },
});

export const errorHandlingTool = defineTool({
  name: "test_error_handling",
  description: "Always fails with a tool error (isError)",
  handler: () => {
    throw new Error("This tool intentionally returns an error for testing");
  },
});

// Plain JSON Schema is listed verbatim: a zod schema would lose $anchor, if/then/else and the rest.
const contactSchema = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  $defs: {
    address: {
      $anchor: "addressDef",
      type: "object",
      properties: { street: { type: "string" }, city: { type: "string" } },
    },
  },
  properties: {
    name: { type: "string" },
    address: { $ref: "#/$defs/address" },
    contactMethod: { type: "string", enum: ["phone", "email"] },
    phone: { type: "string" },
    email: { type: "string" },
  },
  allOf: [{ anyOf: [{ required: ["phone"] }, { required: ["email"] }] }],
  if: { properties: { contactMethod: { const: "phone" } }, required: ["contactMethod"] },
  then: { required: ["phone"] },
  else: { required: ["email"] },
  additionalProperties: false,
};

export const jsonSchema202012Tool = defineTool({
  name: "json_schema_2020_12_tool",
  description: "Tool with JSON Schema 2020-12 features",
  inputSchema: contactSchema,
  handler: (_event, args) => `Contact received: ${JSON.stringify(args)}`,
});

export const xMcpHeaderTool = defineTool({
  name: "test_x_mcp_header",
  description: "Echoes a region the client must mirror in the Mcp-Param-Region header",
  inputSchema: z.object({ region: z.string().describe("A region name").meta({ "x-mcp-header": "Region" }) }),
  handler: (_event, { region }) => `Region: ${region}`,
});

export const missingCapabilityTool = defineTool({
  name: "test_missing_capability",
  description: "Needs the client's sampling capability; without it the call fails with -32021",
  handler: (event) => {
    // Asking for sampling from a client that did not declare it throws -32021 with
    // data.requiredCapabilities = { sampling: {} } before anything is sent.
    const input = mcpInput(event, {
      summary: mcpSample({ messages: [{ role: "user", content: { type: "text", text: "Say hello." } }], maxTokens: 20 }),
    });
    if (!input.complete) return input.ask();
    return "Sampling answered.";
  },
});

export const streamingElicitationTool = defineTool({
  name: "test_streaming_elicitation",
  description: "Asks the user for a word with input_required, never with a server-to-client request",
  handler: (event) => {
    const input = mcpInput(event, {
      word: mcpElicit({
        message: "Pick a word",
        requestedSchema: { type: "object", properties: { word: { type: "string" } }, required: ["word"] },
      }),
    });
    if (!input.complete) return input.ask();
    return `You picked: ${input.answers.word?.content?.word ?? "nothing"}`;
  },
});

export const loggingTool = defineTool({
  name: "test_logging_tool",
  description: "Logs at info level; logs go out only when the request set a log level",
  handler: (event) => {
    mcpLog(event, "info", "test_logging_tool ran");
    return "Logged (if a log level was requested).";
  },
});

export const triggerToolChangeTool = defineTool({
  name: "test_trigger_tool_change",
  description: "Announces notifications/tools/list_changed to listening clients",
  handler: (event) => {
    mcpListChanged(event, "tools");
    return "Announced a tools list change.";
  },
});

export const triggerPromptChangeTool = defineTool({
  name: "test_trigger_prompt_change",
  description: "Announces notifications/prompts/list_changed to listening clients",
  handler: (event) => {
    mcpListChanged(event, "prompts");
    return "Announced a prompts list change.";
  },
});

/** In listing order; test_simple_text must stay first. */
export const conformanceTools = [
  simpleTextTool,
  imageContentTool,
  audioContentTool,
  embeddedResourceTool,
  multipleContentTool,
  progressTool,
  errorHandlingTool,
  jsonSchema202012Tool,
  xMcpHeaderTool,
  missingCapabilityTool,
  streamingElicitationTool,
  loggingTool,
  triggerToolChangeTool,
  triggerPromptChangeTool,
];
