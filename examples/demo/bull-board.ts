// Bull Board (the BullMQ dashboard) on an h3 v2 app. Its own h3 adapter (@bull-board/h3) targets h3 v1,
// so this is a small adapter of its own on @bull-board/api: the board's API routes and its page, under
// `basePath`, each behind `guard` (the app's own authorization). The queues are shown read-only: a job
// only carries a task id, and the task's state is the task store's, so retrying or editing a job from the
// board would only confuse what the store says.
import { createBullBoard } from "@bull-board/api";
import { BullMQAdapter } from "@bull-board/api/bullMQAdapter";
import type { AppControllerRoute, AppViewRoute, BullBoardQueues, ControllerHandlerReturnType, IServerAdapter, UIConfig } from "@bull-board/api/typings/app";
import type { Queue } from "bullmq";
import { getQuery, getRouterParams, readBody, serveStatic, type H3, type H3Event } from "h3";
import { readFileSync, statSync } from "node:fs";
import path from "node:path";

export interface BullBoardMount {
  /** Where the board is served, e.g. "/admin/queues" (no trailing slash). */
  basePath: string;
  queues: readonly Queue[];
  /** Runs before every board request; throws (an h3 `HTTPError`) to refuse it. */
  guard: (event: H3Event) => void | Promise<void>;
}

/** Serves Bull Board for `queues` on `app` at `basePath`, behind `guard`. */
export function mountBullBoard(app: H3, mount: BullBoardMount): void {
  const adapter = new H3v2Adapter(app, mount);
  createBullBoard({ queues: mount.queues.map((queue) => new BullMQAdapter(queue, { readOnlyMode: true })), serverAdapter: adapter });
  adapter.register();
}

// --- Internal ---

const CONTENT_TYPES: Record<string, string> = {
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".json": "application/json",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".svg": "image/svg+xml",
  ".woff2": "font/woff2",
};

class H3v2Adapter implements IServerAdapter {
  #app: H3;
  #mount: BullBoardMount;
  #queues: BullBoardQueues = new Map();
  #ui: UIConfig = {};
  #statics?: { route: string; dir: string };
  #views?: string;
  #entry?: AppViewRoute;
  #routes: AppControllerRoute[] = [];
  #onError: (error: Error) => ControllerHandlerReturnType = () => ({ status: 500, body: { error: "Internal error" } });

  constructor(app: H3, mount: BullBoardMount) {
    this.#app = app;
    this.#mount = mount;
  }
  setQueues(queues: BullBoardQueues) {
    this.#queues = queues;
    return this;
  }
  setViewsPath(dir: string) {
    this.#views = dir;
    return this;
  }
  setStaticPath(route: string, dir: string) {
    this.#statics = { route, dir };
    return this;
  }
  setEntryRoute(route: AppViewRoute) {
    this.#entry = route;
    return this;
  }
  setErrorHandler(handler: (error: Error) => ControllerHandlerReturnType) {
    this.#onError = handler;
    return this;
  }
  setApiRoutes(routes: AppControllerRoute[]) {
    this.#routes = routes;
    return this;
  }
  setUIConfig(config: UIConfig) {
    this.#ui = config;
    return this;
  }

  register() {
    const { basePath, guard } = this.#mount;
    const app = this.#app;
    for (const { method, route, handler } of this.#routes) {
      for (const m of [method].flat()) {
        for (const r of [route].flat()) {
          app.on(m.toUpperCase() as "GET", basePath + r, async (event) => {
            await guard(event);
            try {
              const { status, body } = await handler({
                queues: this.#queues,
                uiConfig: this.#ui,
                params: getRouterParams(event, { decode: true }),
                query: getQuery(event),
                body: m === "get" ? {} : ((await readBody(event)) ?? {}),
                headers: Object.fromEntries(event.req.headers),
              });
              return Response.json(body, { status: status ?? 200 });
            } catch (error) {
              const { status, body } = this.#onError(error as Error);
              return Response.json(body, { status: status ?? 500 });
            }
          });
        }
      }
    }
    const entry = this.#entry!;
    const page = readFileSync(path.join(this.#views!, "index.ejs"), "utf8");
    for (const r of [entry.route].flat()) {
      app.get(basePath + r, async (event) => {
        await guard(event);
        const { params } = entry.handler({ basePath, uiConfig: this.#ui });
        return new Response(render(page, params), { headers: { "content-type": "text/html; charset=utf-8" } });
      });
    }
    const statics = this.#statics!;
    const prefix = `${basePath}${statics.route}/`;
    const root = path.resolve(statics.dir);
    // The asset's path inside the statics directory, or undefined for anything that would leave it.
    const fileOf = (id: string) => {
      const file = path.resolve(root, `.${id.startsWith(prefix) ? id.slice(prefix.length - 1) : "/"}`);
      return file.startsWith(root + path.sep) ? file : undefined;
    };
    app.get(`${prefix}**`, async (event) => {
      await guard(event);
      return serveStatic(event, {
        fallthrough: false,
        getContents: (id) => {
          const file = fileOf(id);
          return file && readFileSync(file);
        },
        getMeta: (id) => {
          const file = fileOf(id);
          try {
            return file ? { size: statSync(file).size, type: CONTENT_TYPES[path.extname(file)] } : undefined;
          } catch {
            return undefined;
          }
        },
      });
    });
  }
}

/** The board's page is an EJS template of plain substitutions only: `<%= key %>` escaped, `<%- key %>` as is. */
function render(template: string, params: Record<string, string | undefined>): string {
  return template.replace(/<%([=-])\s*(\w+)\s*%>/g, (_, kind: string, key: string) => {
    const value = params[key] ?? "";
    return kind === "-" ? value : value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  });
}
