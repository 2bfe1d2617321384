import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import * as machines from "../../machines/index.ts";
import * as root from "../../src/index.ts";
import * as tasks from "../../src/tasks/index.ts";

const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));

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
        "canCreateTask",
        "defineMcpHandler",
        "defineMcpPlugin",
        "definePrompt",
        "defineResource",
        "defineResourceTemplate",
        "defineTool",
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
    expect(Object.keys(tasks).sort()).toEqual(["TASKS_EXTENSION", "canCreateTask", "mcpTask", "mcpTasks"]);
    expect(Object.keys(machines).sort()).toEqual(["taskMachine"]);
  });

  it("serves mcpTask and canCreateTask from both entries as the same functions", () => {
    expect(root.mcpTask).toBe(tasks.mcpTask);
    expect(root.canCreateTask).toBe(tasks.canCreateTask);
  });

  it("declares the three entries with types, ESM only", () => {
    expect(pkg.name).toBe("h3-mcp");
    expect(pkg.type).toBe("module");
    for (const entry of [".", "./tasks", "./machines"]) {
      expect(pkg.exports[entry].types).toMatch(/\.d\.mts$/);
      expect(pkg.exports[entry].import).toMatch(/\.mjs$/);
    }
    expect(Object.keys(pkg.dependencies).sort()).toEqual(["h3", "nanoid", "srvx", "xstate", "zod"]);
  });
});

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
