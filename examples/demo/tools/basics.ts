// Everyday tools: a plain echo, and a greeting that asks the user for a name (MRTR).
import { defineTool, mcpElicit, mcpInput } from "h3-mcp";
import { z } from "zod";

export const echoTool = defineTool({
  name: "echo",
  description: "Echoes its text",
  inputSchema: z.object({ text: z.string() }),
  handler: (_event, { text }) => text,
});

const askName = mcpElicit({
  message: "What is your name?",
  requestedSchema: { type: "object", properties: { name: { type: "string", title: "Name" } }, required: ["name"] },
});

export const greetUserTool = defineTool({
  name: "greet_user",
  description: "Asks for your name, then greets you",
  handler: (event) => {
    const input = mcpInput(event, { name: askName });
    if (!input.complete) return input.ask();
    const answer = input.answers.name;
    if (answer?.action !== "accept" || typeof answer.content?.name !== "string") return "No name, no greeting.";
    return `Hello, ${answer.content.name}!`;
  },
});

export const basicTools = [echoTool, greetUserTool];
