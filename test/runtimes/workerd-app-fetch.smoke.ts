import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { expectError, expectResult, S } from "../helpers/schemas.ts";
import { call, TASKS } from "../helpers/wire.ts";
import { launchWorker, type Launched } from "./launch.ts";
import { accessToken, describeRuntime, withToken } from "./smoke.ts";

// workerd through `wrangler dev`, with the entry most h3 and Workers examples show:
// `export default { fetch: app.fetch }` (examples/runtimes/worker-app-fetch.ts). The request carries no
// waitUntil; task runs live on through the one `cloudflare:workers` exports, which h3-mcp's workerd
// build imports.
describeRuntime("workerd, { fetch: app.fetch }", () => {
  const { app, work } = inject("smokeDirs");
  return launchWorker("workerd-app-fetch", { script: "worker-app-fetch.ts", app, work, ...inject("runtimes") });
});

// The same entry bundled without the workerd condition (as a bundler that does not set it would): no
// waitUntil anywhere, so a task is refused with an error that says why and what to do, not left working.
describe("workerd, { fetch: app.fetch }, bundled without the workerd condition", () => {
  let server: Launched;
  beforeAll(async () => {
    const { app, work } = inject("smokeDirs");
    const env = { WRANGLER_BUILD_CONDITIONS: "worker,browser" };
    server = await launchWorker("workerd-no-condition", { script: "worker-app-fetch.ts", app, work, ...inject("runtimes"), env });
  }, 180_000);
  afterAll(async () => {
    await server?.stop();
  });

  it("refuses to create a task with -32603 naming the cause and the fix, and serves other calls", async () => {
    const caps = { extensions: { [TASKS]: {} } };
    const client = withToken(server.url.href, await accessToken(server.url.href));
    const refused = await call(client, "tools/call", { name: "slow_task", arguments: {} }, { caps });
    const error = expectError(refused.body, -32603);
    expect(error.message).toMatch(/^No task can be created: on Cloudflare Workers a task's run needs a waitUntil/);
    expect(error.message).toMatch(/without the workerd export condition/);
    expect(error.message).toMatch(/serve\(app, \{ manual: true \}\)\.fetch/);
    const echoed = await call(client, "tools/call", { name: "echo", arguments: { text: "still here" } }, { caps });
    expect(expectResult(echoed.body, S.callTool).content).toEqual([{ type: "text", text: "echo: still here" }]);
  });
});
