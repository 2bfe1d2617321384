// Two callers with real tokens for the auth tests: a real authorization server started for the file, a token
// for each of two subjects, and the per-subject task cap checked the same way on one instance or several.
import type { H3 } from "h3";
import { afterAll, beforeAll, expect } from "vitest";
import { bearer, RESOURCE } from "../fixtures/auth-app.ts";
import { startAuthorizationServer, type AuthorizationServer } from "./authorization-server.ts";
import { call, TASKS } from "./wire.ts";

/**
 * For a test file about who calls: starts a real authorization server, with a token for each of two subjects
 * (`alice` is `as.client`, `bob` is `as.otherClient`), filled in before the file's tests run.
 */
export function useTwoCallers(): { as: AuthorizationServer; alice: string; bob: string } {
  const callers = {} as { as: AuthorizationServer; alice: string; bob: string };
  beforeAll(async () => {
    callers.as = await startAuthorizationServer();
    [callers.alice, callers.bob] = await Promise.all([callers.as.token(RESOURCE, "mcp"), callers.as.token(RESOURCE, "mcp", callers.as.otherClient)]);
  });
  afterAll(() => callers.as?.close());
  return callers;
}

/**
 * maxPerOwner 2 with real tokens on one or more instances of one server: a subject creating tasks at once
 * on all of them gets exactly two, the rest refused naming the cap, a fresh token of the same subject is
 * refused too (the cap is per subject, not per token), and another subject still gets theirs.
 */
export async function expectPerSubjectCap(apps: readonly H3[], callers: { as: AuthorizationServer; alice: string; bob: string }) {
  const create = (app: H3, token: string) => call(app, "tools/call", { name: "slow_task" }, { headers: bearer(token), caps: { extensions: { [TASKS]: {} } } });
  const burst = await Promise.all(Array.from({ length: 6 }, (_, i) => create(apps[i % apps.length]!, callers.alice)));
  const created = burst.filter((answer) => answer.body.result?.resultType === "task");
  const refused = burst.filter((answer) => answer.body.error);
  expect(created).toHaveLength(2);
  expect(refused).toHaveLength(4);
  for (const answer of refused) {
    expect(answer.status).toBe(200);
    expect(answer.body.error).toEqual({
      code: -32603,
      message: "Too many tasks for this caller (2 tasks retained, the most one caller may hold); try again later",
      data: { maxPerOwner: 2 },
    });
  }
  const fresh = await callers.as.token(RESOURCE, "mcp");
  expect((await create(apps.at(-1)!, fresh)).body.error?.data).toEqual({ maxPerOwner: 2 });
  for (const i of [0, 1]) expect((await create(apps[i % apps.length]!, callers.bob)).body.result?.resultType).toBe("task");
  expect((await create(apps[0]!, callers.bob)).body.error?.data).toEqual({ maxPerOwner: 2 });
}
