// The durability cluster (test/durability/cluster.ts) on one SQLite file instead of Redis: every demo
// process started with MCP_TASKS_SQLITE on it shares it, as processes of one host do.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { ClusterBackend } from "../durability/cluster.ts";

export function sqliteBackend(): ClusterBackend & { readonly file: string } {
  let dir: string | undefined;
  return {
    get file() {
      return path.join(dir!, "tasks.db");
    },
    async open() {
      dir = mkdtempSync(path.join(tmpdir(), "h3-mcp-sqlite-demo-"));
    },
    env() {
      return { MCP_TASKS_SQLITE: this.file };
    },
    async close() {
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}
