// The params field a client's `Mcp-Name` header mirrors, by method: the store kit's client's table,
// written out from the spec, not read from the server's code.
export { NAME_PARAM } from "../../src/tasks/testing/client.ts";
