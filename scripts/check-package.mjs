#!/usr/bin/env node
// Proves the built package works for another project: packs it, installs the tarball into a
// throwaway consumer, and serves one request through each public entry.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dir = mkdtempSync(path.join(tmpdir(), "h3-mcp-consumer-"));
const run = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, stdio: ["ignore", "pipe", "inherit"], encoding: "utf8" });

try {
  const tarball = run("npm", ["pack", "--silent", "--pack-destination", dir], root).trim().split("\n").pop();
  writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
  run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", path.join(dir, tarball)], dir);
  writeFileSync(
    path.join(dir, "check.mjs"),
    `import { H3 } from "h3";
import { defineMcpHandler, defineTool } from "h3-mcp";
import { mcpTasks, mcpTask } from "h3-mcp/tasks";
import { taskMachine } from "h3-mcp/machines";
const tool = defineTool({ name: "t", description: "t", handler: (e) => mcpTask(e, { run: () => ({ content: [] }) }) });
const app = new H3().all("/mcp", defineMcpHandler({ name: "c", version: "1", tools: [tool] }, { extensionPlugins: [mcpTasks()] }));
const meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } } };
const res = await app.fetch(new Request("http://localhost/mcp", { method: "POST",
  headers: { "content-type": "application/json", "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "t" },
  body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "t", _meta: meta } }) }));
const body = await res.json();
if (body.result?.resultType !== "task" || taskMachine.id !== "task") { console.error(JSON.stringify(body)); process.exit(1); }
console.log("package check: h3-mcp, h3-mcp/tasks and h3-mcp/machines import and serve from the packed tarball");
`,
  );
  process.stdout.write(run("node", ["check.mjs"], dir));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
