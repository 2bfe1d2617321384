import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import * as machines from "../../machines/index.ts";
import * as root from "../../src/index.ts";
import * as tasks from "../../src/tasks/index.ts";
import * as store from "../../src/tasks/store-entry.ts";
import * as redis from "../../src/tasks/redis/index.ts";
import * as bullmq from "../../src/tasks/bullmq/index.ts";
import * as sqlite from "../../src/tasks/sqlite/index.ts";
import * as postgres from "../../src/tasks/postgres/index.ts";
import * as testing from "../../src/tasks/testing/index.ts";
import * as auth from "../../src/auth/index.ts";

const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");

describe("public entries", () => {
  it("exports exactly these names", () => {
    expect(Object.keys(root).sort()).toMatchInlineSnapshot(`
      [
        "ErrorCode",
        "LEGACY_VERSIONS",
        "MODERN_VERSION",
        "McpJsonRpcError",
        "McpUsageError",
        "SUPPORTED_VERSIONS",
        "TASKS_EXTENSION",
        "TaskStoreOutageError",
        "canCreateTask",
        "defineMcpHandler",
        "defineMcpPlugin",
        "definePrompt",
        "defineResource",
        "defineResourceTemplate",
        "defineTool",
        "getMcpAuth",
        "getMcpContext",
        "mcpElicit",
        "mcpElicitUrl",
        "mcpInput",
        "mcpInputRequired",
        "mcpInputResponses",
        "mcpListChanged",
        "mcpListRoots",
        "mcpLog",
        "mcpProgress",
        "mcpRequestState",
        "mcpResourceUpdated",
        "mcpSample",
        "mcpTask",
        "mcpValidateElicitation",
      ]
    `);
    expect(Object.keys(tasks).sort()).toEqual(["McpJsonRpcError", "TASKS_EXTENSION", "canCreateTask", "defineTaskRun", "drainOnSignal", "mcpElicit", "mcpTask", "mcpTasks", "memoryTaskStore"]);
    expect(Object.keys(store).sort()).toEqual(["taskStoreUnavailable"]);
    expect(Object.keys(machines).sort()).toEqual(["taskMachine"]);
    expect(Object.keys(redis).sort()).toEqual(["redisTaskStore"]);
    expect(Object.keys(sqlite).sort()).toEqual(["sqliteTaskStore"]);
    expect(Object.keys(postgres).sort()).toEqual(["postgresTaskStore", "postgresTaskStoreSql"]);
    expect(Object.keys(bullmq).sort()).toEqual(["bullmqExecutor", "startTaskWorker"]);
    expect(Object.keys(testing).sort()).toEqual(["KitAssertionError", "ModelPathError", "TestClientError", "createHold", "createTestClient", "driveModelPath", "getModelPaths", "interruptTask", "taskExecutorSuite", "taskStoreSuite"]);
    expect(Object.keys(auth).sort()).toEqual([
      "ASYMMETRIC_ALGORITHMS",
      "AuthorizationServerUnavailableError",
      "InvalidTokenError",
      "getMcpAuth",
      "introspectionVerifier",
      "jwtVerifier",
      "mcpAuth",
    ]);
  });

  it("serves mcpTask and canCreateTask from both entries as the same functions", () => {
    expect(root.mcpTask).toBe(tasks.mcpTask);
    expect(root.canCreateTask).toBe(tasks.canCreateTask);
    expect(root.McpJsonRpcError).toBe(tasks.McpJsonRpcError);
    expect(root.mcpElicit).toBe(tasks.mcpElicit);
    expect(root.getMcpAuth).toBe(auth.getMcpAuth);
  });

  it("declares every entry with types and one ESM file that import and require() both resolve", () => {
    expect(pkg.name).toBe("h3-mcp");
    expect(pkg.type).toBe("module");
    for (const [entry, target] of Object.entries<Record<string, string> | string>(pkg.exports)) {
      if (entry === "./package.json") continue;
      expect(Object.keys(target)).toEqual(["types", "default"]);
      expect((target as Record<string, string>).types).toMatch(/\.d\.mts$/);
      expect((target as Record<string, string>).default).toMatch(/\.mjs$/);
    }
  });

  it("uses the app's h3 and installs no schema library", () => {
    // h3 2.x releases, and the 2.0.1 prereleases from rc.2 on: Nitro 3.0.0 pins h3 2.0.1-rc.2.
    expect(pkg.peerDependencies).toEqual({ h3: "^2.0.0 || ^2.0.1-rc.2", redis: ">=5", bullmq: "^6.7.0", pg: "^8.11.0", "@opentelemetry/api": "^1.9.0" });
    // Only the Redis, BullMQ and Postgres entries load their clients, only the OpenTelemetry entry the API, and only an app that uses one installs it.
    expect(pkg.peerDependenciesMeta).toEqual({ redis: { optional: true }, bullmq: { optional: true }, pg: { optional: true }, "@opentelemetry/api": { optional: true } });
    expect(Object.keys(pkg.dependencies).sort()).toEqual(["@cfworker/json-schema", "jose", "nanoid", "srvx", "xstate"]);
    expect(pkg.dependencies.zod).toBeUndefined();
    expect(pkg.devDependencies.h3).toBeDefined();
  });

  it("lists in the README exactly the dependencies and peers package.json declares", () => {
    const requirements = readme.slice(readme.indexOf("## Requirements"));
    const named = (line: string) => [...line.matchAll(/`([a-z0-9@/-]+)` \d/g)].map((m) => m[1]).sort();
    const lines = requirements.split("\n- ");
    expect(named(lines.find((l) => l.startsWith("Peer dependency"))!)).toEqual(Object.keys(pkg.peerDependencies).sort());
    expect(named(lines.find((l) => l.startsWith("Runtime dependencies"))!)).toEqual(Object.keys(pkg.dependencies).sort());
  });

  it("builds dist/ when packed and says where it lives", () => {
    expect(pkg.scripts.prepack).toBe("npm run build");
    expect(pkg.license).toBe("MIT");
    expect(readFileSync(new URL("../../LICENSE", import.meta.url), "utf8")).toMatch(/^MIT License\n/);
    const repo = repoUrl();
    expect(pkg.homepage).toBe(`${repo}#readme`);
    expect(pkg.bugs.url).toBe(`${repo}/issues`);
  });

  it("links from the README only to absolute addresses, its own ones to files that exist (npm shows it away from the repo)", () => {
    const repo = repoUrl();
    const targets = [...readme.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]);
    expect(targets.length).toBeGreaterThan(5);
    for (const target of targets) {
      expect(target, target).toMatch(/^https:\/\//);
      const own = target.startsWith(`${repo}/blob/main/`)
        ? target.slice(`${repo}/blob/main/`.length)
        : target.startsWith(`${repo.replace("github.com", "raw.githubusercontent.com")}/main/`)
          ? target.slice(`${repo.replace("github.com", "raw.githubusercontent.com")}/main/`.length)
          : undefined;
      if (own !== undefined) expect(existsSync(new URL(`../../${own.split("#")[0]}`, import.meta.url)), target).toBe(true);
    }
  });
});

function repoUrl(): string {
  const match = /^git\+(https:\/\/github\.com\/[^/]+\/[^/]+)\.git$/.exec(pkg.repository.url);
  expect(match, "repository.url is git+https://github.com/owner/name.git").not.toBeNull();
  return match![1];
}

describe("the core does not load the tasks extension", () => {
  const src = new URL("../../src/", import.meta.url).pathname;
  const coreFiles = readdirSync(src, { recursive: true, withFileTypes: true })
    .filter((f) => f.isFile() && f.name.endsWith(".ts"))
    .map((f) => join(f.parentPath, f.name))
    .filter((f) => !f.includes("/src/tasks/") && !f.endsWith("/src/index.ts"));

  it.each(coreFiles.map((f) => [f.slice(src.length), f]))("%s imports neither xstate nor src/tasks at run time", (_name, file) => {
    const text = readFileSync(file, "utf8");
    const runtimeImports = [...text.matchAll(/^import (?!type )[^;]*? from "([^"]+)";/gms)].map((m) => m[1]);
    for (const spec of runtimeImports) {
      expect(spec).not.toMatch(/^xstate|\/tasks\/|machines/);
    }
  });

  it("finds the run-time imports it checks", () => {
    const handler = readFileSync(join(src, "transport/handler.ts"), "utf8");
    const found = [...handler.matchAll(/^import (?!type )[^;]*? from "([^"]+)";/gms)].map((m) => m[1]);
    expect(found).toContain("h3");
    expect(found).toContain("./legacy.ts");
  });

  it("re-exports nothing from src/tasks in the root entry", () => {
    const text = readFileSync(join(src, "index.ts"), "utf8");
    expect(text).not.toMatch(/from "\.\/tasks\//);
  });
});
