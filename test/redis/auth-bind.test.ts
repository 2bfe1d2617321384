// Tasks bound by default to the token's issuer and subject, across instances sharing one Redis, against a
// real authorization server: another caller never reads a task on any instance, and the per-caller cap
// holds across instances.
import { describe, expect, it } from "vitest";
import { authApp, bearer } from "../fixtures/auth-app.ts";
import { expectPerSubjectCap, useTwoCallers } from "../helpers/auth-callers.ts";
import { expectError, expectShape, S } from "../helpers/schemas.ts";
import { call, TASKS } from "../helpers/wire.ts";
import { twoRedisInstances } from "./instances.ts";

const instances = twoRedisInstances("auth-bind");
const callers = useTwoCallers();

const caps = { extensions: { [TASKS]: {} } };

describe("default bind on a shared store", () => {
  it("lets the creator read its task on the other instance, and nobody else on either", async () => {
    const { as, alice, bob } = callers;
    const [a, b] = instances().map((tasks) => authApp({ issuer: as.issuer, tasks }).app);
    const created = await call(a!, "tools/call", { name: "slow_task" }, { headers: bearer(alice), caps });
    expectShape(S.createTask, created.body.result);
    const taskId = created.body.result.taskId;
    expect((await call(b!, "tasks/get", { taskId }, { headers: bearer(alice), caps })).status).toBe(200);
    for (const app of [a!, b!]) {
      const theirs = await call(app, "tasks/get", { taskId }, { headers: bearer(bob), caps });
      expect(expectError(theirs.body, -32602).message).toBe("Unknown task");
    }
  });

  it("holds maxPerOwner across instances, per subject, atomically", async () => {
    const apps = instances().map((tasks) => authApp({ issuer: callers.as.issuer, tasks: { ...tasks, maxPerOwner: 2 } }).app);
    await expectPerSubjectCap(apps, callers);
  });
});
