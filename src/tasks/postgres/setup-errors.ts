// What postgresTaskStore() says when it is set up wrong: a bound or durable setup without `secret`, or a call
// before mcpTasks() took it.
export const WHERE = "postgresTaskStore()";

export function secretRequired(): TypeError {
  return new TypeError(
    `${WHERE}: tasks are bound to their callers (mcpTasks({ bind }), or authorization), so the store needs \`secret\`, ` +
      "the key it hashes owners with before they reach the database: give every instance the same random value, " +
      "e.g. postgresTaskStore({ connectionString, secret: process.env.MCP_TASKS_SECRET })",
  );
}

export function runsNeedSecret(): TypeError {
  return new TypeError(
    `${WHERE}: runs found by name (mcpTasks({ runs })) keep their input, checkpoint and answers in the database, sealed ` +
      "under the store's `secret`: give every instance the same random value, e.g. postgresTaskStore({ connectionString, secret: process.env.MCP_TASKS_SECRET })",
  );
}

export function throwRunsNeedSecret(): never {
  throw runsNeedSecret();
}

export function notConnected(): never {
  throw new Error(`${WHERE}: not connected to mcpTasks() yet`);
}
