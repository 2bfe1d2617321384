// The Node side of the kit smokes (durable-object-kit.smoke.ts, durable-object-executor-kit.smoke.ts): the
// kit's tree of cases, registered here for their names and places only, becomes vitest suites and tests of
// the same names, each test asking the kit Worker (kit-requests.ts) to run its case inside workerd and
// checking the messages the case read against the official schemas.
import { copyFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { KitRunner, TaskShape } from "../../../src/tasks/testing/index.ts";
import { checkTaskShape } from "../../helpers/schemas.ts";
import { launchWorker, type Launched } from "../launch.ts";

const here = path.dirname(fileURLToPath(import.meta.url));

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

/** A body of the kit's options that must not run here: each case runs in the Worker. */
export const inWorker = (): never => {
  throw new Error("the kit's cases run inside the Worker");
};

/** The tree of cases `register` registers with the runner it is given. */
function kitTree(register: (runner: KitRunner) => void): Group {
  const root: Group = { name: "", cases: [], groups: [] };
  let at = root;
  register({
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
  });
  return root;
}

/**
 * Declares, in vitest, the kit `register` registers (with the same options as the Worker gives it, its
 * bodies `inWorker`), run one case per request by the Worker `script` of `config` (both copied from
 * durable-object/ into the smokes' app project with `files`). One case at a time, in the kit's order: a case
 * summing up its group reads what the cases before it saw, and cases sharing workerd's one thread would
 * only slow each other down.
 */
export function declareKitInWorker(title: string, opts: { name: string; script: string; config: string; files: string[]; register: (runner: KitRunner) => void }): void {
  let worker: Launched;
  const names: string[] = [];
  const declare = (group: Group, at: string[]) => {
    for (const name of group.cases) {
      const full = [...at, name].join(" > ");
      names.push(full);
      it(name, async () => {
        const res = await fetch(new URL("/kit/run", worker.url), { method: "POST", body: JSON.stringify({ name: full }) });
        expect(res.status).toBe(200);
        const answer = (await res.json()) as CaseAnswer;
        if (!answer.ok) throw new Error(`${answer.error}\n--- wrangler log ---\n${worker.log().slice(-4000)}`);
        for (const { kind, value } of answer.shapes) checkTaskShape(kind, value);
      });
    }
    for (const child of group.groups) describe(child.name, () => declare(child, [...at, child.name]));
  };

  describe(title, () => {
    beforeAll(async () => {
      const { app, work } = inject("smokeDirs");
      for (const file of opts.files) copyFileSync(path.join(here, file), path.join(app, file));
      worker = await launchWorker(opts.name, { script: opts.script, config: opts.config, app, work, ...inject("runtimes") });
      // The packed kit the Worker runs has exactly the cases declared here from the source.
      expect(await (await fetch(new URL("/kit", worker.url))).json()).toEqual(names);
    }, 180_000);
    afterAll(async () => {
      await worker?.stop();
    });
    declare(kitTree(opts.register), []);
  });
}
