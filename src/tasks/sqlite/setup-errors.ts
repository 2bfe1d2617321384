// What sqliteTaskStore() answers a setup mistake with: each error names the store and says what to give it.
export const WHERE = "sqliteTaskStore()";

export function secretRequired(): TypeError {
  return new TypeError(
    `${WHERE}: tasks are bound to their callers (mcpTasks({ bind }), or authorization), so the store needs \`secret\`, ` +
      "the key it hashes owners with before they reach the file: give every process the same random value, " +
      "e.g. sqliteTaskStore({ database, secret: process.env.MCP_TASKS_SECRET })",
  );
}

export function runsNeedSecret(): TypeError {
  return new TypeError(
    `${WHERE}: runs found by name (mcpTasks({ runs })) keep their input, checkpoint and answers in the file, sealed ` +
      "under the store's `secret`: give every process the same random value, e.g. sqliteTaskStore({ database, secret: process.env.MCP_TASKS_SECRET })",
  );
}

export function notConnected(): never {
  throw new Error(`${WHERE}: not connected to mcpTasks() yet`);
}
