// Fixtures only the 2025-11-25 suite calls (conformance/fixtures.md, section F).
// They are written MRTR-style like every other tool: on a legacy session the server carries the input
// requests to the client as server-to-client requests and runs the handler again with the answers.
import { defineTool, mcpElicit, mcpInput, mcpLog, mcpSample } from "h3-mcp";
import { z } from "zod";
import { sleep } from "../sleep.ts";

export const toolWithLogging = defineTool({
  name: "test_tool_with_logging",
  description: "Logs three info messages about 50 ms apart",
  handler: async (event) => {
    // The delays let a client see the logs arrive one by one, before the result.
    mcpLog(event, "info", "Tool execution started");
    await sleep(50);
    mcpLog(event, "info", "Tool processing data");
    await sleep(50);
    mcpLog(event, "info", "Tool execution completed");
    return "Logging tool finished.";
  },
});

export const samplingTool = defineTool({
  name: "test_sampling",
  description: "Asks the client's LLM to answer a prompt",
  inputSchema: z.object({ prompt: z.string().describe("The prompt to send to the LLM") }),
  handler: (event, { prompt }) => {
    const input = mcpInput(event, {
      answer: mcpSample({ messages: [{ role: "user", content: { type: "text", text: prompt } }], maxTokens: 100 }),
    });
    if (!input.complete) return input.ask();
    const content = input.answers.answer?.content;
    const text = content && !Array.isArray(content) && content.type === "text" ? content.text : JSON.stringify(content);
    return `LLM response: ${text}`;
  },
});

export const elicitationTool = defineTool({
  name: "test_elicitation",
  description: "Asks the user for a username and an email",
  inputSchema: z.object({ message: z.string().describe("The message to show the user") }),
  handler: (event, { message }) => {
    const input = mcpInput(event, {
      user: mcpElicit({
        message,
        requestedSchema: {
          type: "object",
          properties: {
            username: { type: "string", description: "User's response" },
            email: { type: "string", description: "User's email address" },
          },
          required: ["username", "email"],
        },
      }),
    });
    if (!input.complete) return input.ask();
    const answer = input.answers.user;
    return `User response: action=${answer?.action}, content=${JSON.stringify(answer?.content ?? {})}`;
  },
});

// SEP-1034: every primitive type may carry a default the client pre-fills.
const withDefaults = mcpElicit({
  message: "Please review these defaults",
  requestedSchema: {
    type: "object",
    properties: {
      name: { type: "string", default: "John Doe" },
      age: { type: "integer", default: 30 },
      score: { type: "number", default: 95.5 },
      status: { type: "string", enum: ["active", "inactive", "pending"], default: "active" },
      verified: { type: "boolean", default: true },
    },
  },
});

export const elicitationDefaultsTool = defineTool({
  name: "test_elicitation_sep1034_defaults",
  description: "Elicits a form whose fields all have default values (SEP-1034)",
  handler: (event) => {
    const input = mcpInput(event, { form: withDefaults });
    if (!input.complete) return input.ask();
    const answer = input.answers.form;
    return `Elicitation completed: action=${answer?.action}, content=${JSON.stringify(answer?.content ?? {})}`;
  },
});

// SEP-1330: the five enum shapes, single and multi select, titled and untitled.
const withEnums = mcpElicit({
  message: "Please pick some options",
  requestedSchema: {
    type: "object",
    properties: {
      untitledSingle: { type: "string", enum: ["option1", "option2", "option3"] },
      titledSingle: {
        type: "string",
        oneOf: [
          { const: "value1", title: "First Option" },
          { const: "value2", title: "Second Option" },
          { const: "value3", title: "Third Option" },
        ],
      },
      legacyEnum: { type: "string", enum: ["opt1", "opt2", "opt3"], enumNames: ["Option One", "Option Two", "Option Three"] },
      untitledMulti: { type: "array", items: { type: "string", enum: ["option1", "option2", "option3"] } },
      titledMulti: {
        type: "array",
        items: {
          anyOf: [
            { const: "value1", title: "First Choice" },
            { const: "value2", title: "Second Choice" },
            { const: "value3", title: "Third Choice" },
          ],
        },
      },
    },
  },
});

export const elicitationEnumsTool = defineTool({
  name: "test_elicitation_sep1330_enums",
  description: "Elicits a form with every enum variant (SEP-1330)",
  handler: (event) => {
    const input = mcpInput(event, { form: withEnums });
    if (!input.complete) return input.ask();
    const answer = input.answers.form;
    return `Elicitation completed: action=${answer?.action}, content=${JSON.stringify(answer?.content ?? {})}`;
  },
});

export const reconnectionTool = defineTool({
  name: "test_reconnection",
  description: "Answers after a short pause (SSE polling probe; a plain JSON answer is accepted)",
  handler: async () => {
    await sleep(100);
    return "Reconnection test finished.";
  },
});

export const legacyTools = [
  toolWithLogging,
  samplingTool,
  elicitationTool,
  elicitationDefaultsTool,
  elicitationEnumsTool,
  reconnectionTool,
];
