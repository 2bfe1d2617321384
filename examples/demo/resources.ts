// The resource fixtures (conformance/fixtures.md, table B "Resources").
// test://static-text must stay FIRST: the caching scenario reads whatever resources/list lists first.
// Unknown URIs need nothing here: the server answers them with -32602 and data.uri.
import { defineResource, defineResourceTemplate } from "h3-mcp";
import { redPixelBytes } from "./media.ts";

export const staticText = defineResource({
  uri: "test://static-text",
  name: "Static text",
  description: "A fixed text resource",
  mimeType: "text/plain",
  read: () => "This is the content of the static text resource.",
});

export const staticBinary = defineResource({
  uri: "test://static-binary",
  name: "Static binary",
  description: "A fixed PNG image, read as a base64 blob",
  mimeType: "image/png",
  read: () => redPixelBytes(),
});

export const watchedResource = defineResource({
  uri: "test://watched-resource",
  name: "Watched resource",
  description: "A resource legacy clients subscribe to",
  mimeType: "text/plain",
  read: () => `Watched resource, read at ${new Date().toISOString()}.`,
});

export const templateData = defineResourceTemplate({
  uriTemplate: "test://template/{id}/data",
  name: "Template data",
  description: "JSON data for any id",
  mimeType: "application/json",
  complete: { id: (value) => ["123", "456", "789"].filter((id) => id.startsWith(value)) },
  read: (_event, _uri, { id }) => JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
});

export const resources = [staticText, staticBinary, watchedResource];
export const resourceTemplates = [templateData];
