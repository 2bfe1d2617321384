// Run with: npx tsx docs/examples/content.ts   (serves http://127.0.0.1:3003/mcp)
import { H3, serve } from "h3";
import {
  defineMcpHandler,
  definePrompt,
  defineResource,
  defineResourceTemplate,
  defineTool,
  mcpLog,
  mcpProgress,
  mcpResourceUpdated,
} from "h3-mcp";
import { z } from "zod";

const notes = new Map<string, string>([["welcome", "Hello!"], ["todo", "Write docs"]]);

// Prompts: arguments from a zod object, completion per argument.
const summarize = definePrompt({
  name: "summarize_note",
  description: "Summarize one note",
  arguments: z.object({ note: z.string().describe("Note name"), tone: z.string().optional() }),
  complete: { note: (value) => [...notes.keys()].filter((n) => n.startsWith(value)) },
  handler: (_event, { note, tone }) => [
    { role: "user", content: { type: "text", text: `Summarize in a ${tone ?? "neutral"} tone:` } },
    { role: "user", content: { type: "resource", resource: { uri: `notes://${note}`, mimeType: "text/plain", text: notes.get(note) ?? "" } } },
  ],
});

// Resources: a fixed one, and a family behind an RFC 6570 template.
const index = defineResource({
  uri: "notes://index",
  name: "Note index",
  mimeType: "application/json",
  read: () => JSON.stringify([...notes.keys()]),
});

const note = defineResourceTemplate({
  uriTemplate: "notes://{name}",
  name: "Note",
  mimeType: "text/plain",
  complete: { name: (value) => [...notes.keys()].filter((n) => n.startsWith(value)) },
  // Returning nothing readable makes the server answer -32602 with data.uri.
  read: (_event, _uri, { name }) => (notes.has(name!) ? notes.get(name!)! : []),
});

// A tool that edits a note, logs, reports progress, and tells subscribers the note changed.
const edit = defineTool({
  name: "edit_note",
  description: "Replace a note's text",
  inputSchema: z.object({ name: z.string(), text: z.string() }),
  handler: (event, { name, text }) => {
    mcpProgress(event, 0, 1);
    notes.set(name, text);
    mcpLog(event, "info", { edited: name });
    mcpResourceUpdated(event, `notes://${name}`);
    mcpProgress(event, 1, 1);
    return `Saved ${name}.`;
  },
});

export const mcp = defineMcpHandler({
  name: "notes",
  version: "1.0.0",
  tools: [edit],
  prompts: [summarize],
  resources: [index],
  resourceTemplates: [note],
  cache: { ttlMs: 30_000, cacheScope: "public" },
});

if (import.meta.url === `file://${process.argv[1]}`) serve(new H3().all("/mcp", mcp), { port: 3003, hostname: "127.0.0.1" });
