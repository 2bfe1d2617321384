// What the kit Workers share (kit-worker.ts, executor-kit-worker.ts): a kit of h3-mcp/tasks/testing registers
// its cases with the small runner here, at the first request; then each case runs as one request, with the
// Worker's env and a list of the messages it read (for the caller's schema checks). Copied into the smokes'
// app project beside them.
//   GET  /kit          the full names of every case, in order
//   POST /kit/run      { name } → { ok, error?, shapes }
import { AsyncLocalStorage } from "node:async_hooks";
import type { KitRunner, TaskShape } from "h3-mcp/tasks/testing";

/** What one case read, by kind, for the schema checks done by the caller. */
export type Shapes = { kind: TaskShape; value: unknown }[];

export interface KitWorker<Env> {
  /** The env and shapes of the case running now. */
  running(): { env: Env; shapes: Shapes };
  /** The Worker's fetch handler. */
  fetch(request: Request, env: Env): Promise<Response>;
}

/** A Worker running the kit that `register` registers with the runner it is given. */
export function kitWorker<Env>(register: (runner: KitRunner) => void): KitWorker<Env> {
  const current = new AsyncLocalStorage<{ env: Env; shapes: Shapes }>();
  let cases: Map<string, () => Promise<void>> | undefined;
  /** Registers the kit's cases (once per isolate, at the first request: nothing runs at import). */
  const kitCases = () => {
    if (cases) return cases;
    const found = new Map<string, () => Promise<void>>();
    const path: string[] = [];
    register({
      describe(name, body) {
        path.push(name);
        body();
        path.pop();
      },
      it(name, body) {
        found.set([...path, name].join(" > "), body);
      },
    });
    return (cases = found);
  };
  return {
    running: () => current.getStore() ?? fail("a kit case ran outside its request"),
    async fetch(request, env) {
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
}

function fail(message: string): never {
  throw new Error(message);
}
