// A Worker that runs the task store kit (h3-mcp/tasks/testing) against the Durable Object store inside
// workerd, as a consumer has both entries (the packed package), one case per request (kit-requests.ts). The
// test file (durable-object-kit.smoke.ts) asks for the list, then runs each case and checks the messages
// it read against the official schemas on the Node side.
import { durableObjectTaskStore, type DurableObjectTaskStore, type TasksObjectNamespace } from "h3-mcp/tasks/durable-object";
import { taskStoreSuite } from "h3-mcp/tasks/testing";
import { kitWorker } from "./kit-requests.ts";

export { McpTasksObject } from "h3-mcp/tasks/durable-object";

interface Env {
  MCP_TASKS: TasksObjectNamespace;
}

const kit = kitWorker<Env>((runner) =>
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
      return [0, 1].map(() => durableObjectTaskStore(kit.running().env.MCP_TASKS, { name, secret: "kit-secret", leaseMs: 3000 }));
    },
    settleMs: 8000,
    close: (stores) => stores.forEach((store) => (store as DurableObjectTaskStore).close()),
    // A closed store renews nothing and hears nothing: its lease has lapsed once leaseMs have passed.
    async loseInstance(store) {
      const lost = store as DurableObjectTaskStore;
      lost.close();
      await new Promise((resolve) => setTimeout(resolve, lost.leaseMs + 100));
    },
    runner,
    checkShape: (kind, value) => void kit.running().shapes.push({ kind, value: structuredClone(value) }),
  }),
);

export default { fetch: kit.fetch };
