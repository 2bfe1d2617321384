// A Worker that runs the task store kit (h3-mcp/tasks/testing) against the Durable Object store inside
// workerd, as a consumer has both entries (the packed package). The kit registers its cases with the
// small runner below; the test file (durable-object-kit.smoke.ts) asks for the list, then runs each case
// as one request and checks the messages it read against the official schemas on the Node side.
//   GET  /kit          the full names of every case, in order
//   POST /kit/run      { name } → { ok, error?, shapes }
import { AsyncLocalStorage } from "node:async_hooks";
import { durableObjectTaskStore, type DurableObjectTaskStore, type TasksObjectNamespace } from "h3-mcp/tasks/durable-object";
import { taskStoreSuite, type TaskShape } from "h3-mcp/tasks/testing";

export { McpTasksObject } from "h3-mcp/tasks/durable-object";

interface Env {
  MCP_TASKS: TasksObjectNamespace;
}

/** What one case read, by kind, for the schema checks done by the caller. */
type Shapes = { kind: TaskShape; value: unknown }[];

const current = new AsyncLocalStorage<{ env: Env; shapes: Shapes }>();
const running = () => current.getStore() ?? fail("a kit case ran outside its request");

let cases: Map<string, () => Promise<void>> | undefined;

/** Registers the kit's cases (once per isolate, at the first request: nothing runs at import). */
function kitCases(): Map<string, () => Promise<void>> {
  if (cases) return cases;
  const found = new Map<string, () => Promise<void>>();
  const path: string[] = [];
  taskStoreSuite({
    name: "Durable Object store under workerd",
    shared: true,
    // Runs found by name too: claims, hand-offs, fencing and sealed records, decided inside the object.
    runs: true,
    // Each case a fresh logical server: an object of its own; two instances of it, as two isolates have.
    // Leases short enough for the lost-instance case to be quick, long enough that a renewal delayed by
    // several cases sharing workerd's one thread on a busy machine does not lapse.
    open() {
      const name = `kit-${crypto.randomUUID()}`;
      return [0, 1].map(() => durableObjectTaskStore(running().env.MCP_TASKS, { name, secret: "kit-secret", leaseMs: 3000 }));
    },
    settleMs: 8000,
    close: (stores) => stores.forEach((store) => (store as DurableObjectTaskStore).close()),
    // A closed store renews nothing and hears nothing: its lease has lapsed once leaseMs have passed.
    async loseInstance(store) {
      const lost = store as DurableObjectTaskStore;
      lost.close();
      await new Promise((resolve) => setTimeout(resolve, lost.leaseMs + 100));
    },
    runner: {
      describe(name, body) {
        path.push(name);
        body();
        path.pop();
      },
      it(name, body) {
        found.set([...path, name].join(" > "), body);
      },
    },
    checkShape: (kind, value) => void running().shapes.push({ kind, value: structuredClone(value) }),
  });
  return (cases = found);
}

function fail(message: string): never {
  throw new Error(message);
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === "/kit" && request.method === "GET") return Response.json([...kitCases().keys()]);
    if (url.pathname !== "/kit/run" || request.method !== "POST") return new Response("not found", { status: 404 });
    const { name } = (await request.json()) as { name: string };
    const body = kitCases().get(name);
    if (!body) return Response.json({ ok: false, error: `no kit case named ${JSON.stringify(name)}`, shapes: [] });
    const shapes: Shapes = [];
    try {
      await current.run({ env, shapes }, body);
      return Response.json({ ok: true, shapes });
    } catch (error) {
      const e = error as Error;
      return Response.json({ ok: false, error: `${e.name}: ${e.message}\n${e.stack ?? ""}`, shapes });
    }
  },
};
