// The "h3-mcp" entry. The library is layered, each layer importing only those below it:
//   protocol/  ←  features/  ←  transport/  ←  tasks/ (the "h3-mcp/tasks" entry, loaded only from there)
// with utils/ and machines/ (the "h3-mcp/machines" entry) below all. Each layer's index.ts lists its public names.
export * from "./transport/index.ts";
export * from "./features/index.ts";
export * from "./protocol/index.ts";
