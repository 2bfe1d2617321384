// The runtimes' endpoint with its tasks in a SQLite file, on the synchronous SQLite the runtime has of its
// own: `bun:sqlite` on Bun, `node:sqlite` on Node 22.5+ and Deno. A task outlives the process: started
// again on the same file, the server answers for every task it had.
//   MCP_TASKS_SQLITE=tasks.db MCP_TASKS_SECRET=... bun examples/runtimes/sqlite-server.ts
//   node --experimental-sqlite --import tsx examples/runtimes/sqlite-server.ts     (Node 22.5 to 22.12)
//   deno run --allow-net --allow-env --allow-read --allow-write examples/runtimes/sqlite-server.ts
import { H3, serve } from "h3";
import { sqliteTaskStore, type SqliteDatabaseLike } from "h3-mcp/tasks/sqlite";
import { auth, runtimeMcp } from "./mcp.ts";

type Open = new (file: string) => SqliteDatabaseLike;
// Specifiers in variables: each module exists only on its own runtimes, and neither is typed here.
const bunSqlite = "bun:sqlite";
const nodeSqlite = "node:sqlite";
const Sqlite: Open = "Bun" in globalThis ? (await import(bunSqlite)).Database : (await import(nodeSqlite)).DatabaseSync;

const file = process.env.MCP_TASKS_SQLITE ?? "tasks.db";
// The secret keys the owner hashes: the route is protected, so tasks are bound to their callers.
const store = sqliteTaskStore({ database: new Sqlite(file), secret: process.env.MCP_TASKS_SECRET ?? "change-me" });

const app = new H3();
auth?.serveMetadata(app);
app.all("/mcp", runtimeMcp({ store }));
const server = serve(app, { port: Number(process.env.PORT ?? 3000), hostname: process.env.HOST ?? "127.0.0.1", silent: true });
await server.ready();
console.log(`h3-mcp listening on ${new URL("/mcp", server.url!)}, tasks in the SQLite file ${store.file} (${store.kind})`);
