// The task store kit (h3-mcp/tasks/testing) on the Durable Object store (h3-mcp/tasks/durable-object),
// both as the packed package has them, inside workerd under `wrangler dev` with a local state folder:
// durable-object/kit-worker.ts runs each case as one request, two store instances per case on an object
// of its own. Here every case of the kit becomes a vitest test of the same name and place, whose body asks
// the Worker to run it; the messages the case read are checked against the official schemas here.
import { copyFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { taskStoreSuite, type TaskShape } from "../../src/tasks/testing/index.ts";
import { checkTaskShape } from "../helpers/schemas.ts";
import { launchWorker, type Launched } from "./launch.ts";

const here = path.dirname(fileURLToPath(import.meta.url));
const KIT_NAME = "Durable Object store under workerd";

interface CaseAnswer {
  ok: boolean;
  error?: string;
  shapes: { kind: TaskShape; value: unknown }[];
}

/** The kit's cases as it registers them: nested groups, each case by name. */
interface Group {
  name: string;
  cases: string[];
  groups: Group[];
}

const inWorker = (): never => {
  throw new Error("the kit's cases run inside the Worker");
};

/** The kit's tree, registered for the names and places only: each body runs in the Worker, so no store is opened here. */
function kitTree(): Group {
  const root: Group = { name: "", cases: [], groups: [] };
  let at = root;
  taskStoreSuite({
    name: KIT_NAME,
    shared: true,
    runs: true,
    open: inWorker,
    // Given, as the Worker gives it: the kit registers the lost-instance case only then.
    loseInstance: inWorker,
    runner: {
      describe(name, body) {
        const parent = at;
        at = { name, cases: [], groups: [] };
        parent.groups.push(at);
        body();
        at = parent;
      },
      it(name) {
        at.cases.push(name);
      },
    },
  });
  return root;
}

let worker: Launched;
const names: string[] = [];

/** Declares `group` as vitest suites and tests, each test running its kit case in the Worker. */
function declare(group: Group, path: string[]): void {
  for (const name of group.cases) {
    const full = [...path, name].join(" > ");
    names.push(full);
    it(name, async () => {
      const res = await fetch(new URL("/kit/run", worker.url), { method: "POST", body: JSON.stringify({ name: full }) });
      expect(res.status).toBe(200);
      const answer = (await res.json()) as CaseAnswer;
      if (!answer.ok) throw new Error(`${answer.error}\n--- wrangler log ---\n${worker.log().slice(-4000)}`);
      for (const { kind, value } of answer.shapes) checkTaskShape(kind, value);
    });
  }
  for (const child of group.groups) describe(child.name, () => declare(child, [...path, child.name]));
}

// One case at a time, in the kit's order: a case summing up its group (every chart path replayed) reads
// what the cases before it saw, and cases sharing workerd's one thread would only slow each other down.
describe("the task store kit inside workerd", () => {
  beforeAll(async () => {
    const { app, work } = inject("smokeDirs");
    for (const file of ["kit-worker.ts", "wrangler.kit.jsonc"]) copyFileSync(path.join(here, "durable-object", file), path.join(app, file));
    worker = await launchWorker("workerd-do-kit", { script: "kit-worker.ts", config: "wrangler.kit.jsonc", app, work, ...inject("runtimes") });
    // The packed kit the Worker runs has exactly the cases declared here from the source.
    expect(await (await fetch(new URL("/kit", worker.url))).json()).toEqual(names);
  }, 180_000);
  afterAll(async () => {
    await worker?.stop();
  });
  declare(kitTree(), []);
});
