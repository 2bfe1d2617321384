#!/usr/bin/env node
// Proves the package as npm would publish it works for another project: `npm pack` from a tree without
// dist/ (so `prepack` must build it), every `exports` target shipped, runtime dependencies exactly what
// dist imports, publint and arethetypeswrong clean, then the tarball installed into a throwaway consumer
// where every entry loads with import() and require(), one request is served through the main ones, the
// store kit passes, and the testing examples (examples/testing) pass under vitest and node:test.
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { exportTargets, packageOf, packagesReachedFrom, specifiersOf } from "./package-imports.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
const dir = mkdtempSync(path.join(tmpdir(), "h3-mcp-consumer-"));
const run = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, stdio: ["ignore", "pipe", "inherit"], encoding: "utf8" });
const failures = [];
const check = (ok, message) => {
  if (!ok) failures.push(message);
};
const sameSet = (a, b) => a.size === b.size && [...a].every((x) => b.has(x));
const list = (set) => [...set].sort().join(", ") || "(none)";

try {
  // 1. Pack from a tree without dist/: only `prepack` can put it in the tarball.
  rmSync(path.join(root, "dist"), { recursive: true, force: true });
  const [packed] = JSON.parse(run("npm", ["pack", "--json", "--foreground-scripts=false", "--pack-destination", dir], root));
  const tarball = path.join(dir, packed.filename);
  const shipped = new Set(packed.files.map((f) => f.path));
  check(shipped.has("LICENSE"), "the tarball has no LICENSE");
  const targets = exportTargets(pkg);
  for (const [subpath, files] of targets) {
    for (const file of files) check(shipped.has(file.replace(/^\.\//, "")), `exports["${subpath}"] → ${file} is not in the tarball`);
  }
  // The package's own `imports` (one file per runtime condition) ship as well.
  for (const [name, files] of exportTargets(pkg, pkg.imports)) {
    for (const file of files) check(shipped.has(file.replace(/^\.\//, "")), `imports["${name}"] → ${file} is not in the tarball`);
  }

  // 2. What dist imports, read from the unpacked tarball.
  const unpacked = path.join(dir, "unpacked");
  mkdirSync(unpacked);
  run("tar", ["xzf", tarball, "-C", unpacked], root);
  const pkgDir = path.join(unpacked, "package");
  const jsFiles = [...shipped].filter((f) => f.startsWith("dist/") && f.endsWith(".mjs"));
  const typeFiles = [...shipped].filter((f) => f.startsWith("dist/") && f.endsWith(".d.mts"));
  const packagesIn = (files) => new Set(files.flatMap((f) => specifiersOf(path.join(pkgDir, f)).map(packageOf)).filter(Boolean));
  const imported = packagesIn(jsFiles);
  const peers = pkg.peerDependencies ?? {};
  const optionalPeers = new Set(Object.keys(peers).filter((name) => pkg.peerDependenciesMeta?.[name]?.optional));
  const declared = new Set([...Object.keys(pkg.dependencies ?? {}), ...Object.keys(peers)]);
  check(sameSet(imported, declared), `dependencies + peerDependencies (${list(declared)}) differ from what dist imports (${list(imported)})`);
  const typed = packagesIn(typeFiles);
  for (const name of typed) check(declared.has(name), `dist's types import "${name}", which is neither a dependency nor a peer`);
  const rootEntry = targets.get(".").find((f) => f.endsWith(".mjs"));
  const fromRoot = packagesReachedFrom(path.join(pkgDir, rootEntry));
  for (const name of optionalPeers) check(!fromRoot.has(name), `the root entry loads the optional peer "${name}": only its own entry may`);
  // A server without authorization loads nothing of the JOSE library: only "h3-mcp/auth" does.
  check(!fromRoot.has("jose"), 'the root entry loads "jose": only "h3-mcp/auth" may');
  // The Durable Object store is a backend of its own: its entry loads no other backend's package.
  const doEntry = targets.get("./tasks/durable-object").find((f) => f.endsWith(".mjs"));
  const fromDurableObject = packagesReachedFrom(path.join(pkgDir, doEntry));
  for (const name of optionalPeers) check(!fromDurableObject.has(name), `"h3-mcp/tasks/durable-object" loads the optional peer "${name}"`);

  // 3. Linters on exactly what was packed. ESM only: require() works through Node's require(esm), which
  // the TypeScript inside arethetypeswrong does not model, hence its esm-only profile.
  run("npx", ["--no-install", "publint", pkgDir, "--pack", "false", "--strict"], root);
  run("npx", ["--no-install", "attw", tarball, "--profile", "esm-only", "--format", "table-flipped"], root);

  // 4. A consumer installs the tarball (npm adds the required peers), measured, then every optional peer.
  writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
  run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", tarball], dir);
  const installedKb = Number(run("du", ["-sk", "node_modules"], dir).split("\t")[0]);
  const optionalSpecs = [...optionalPeers].map((name) => `${name}@${pkg.devDependencies?.[name] ?? peers[name]}`);
  if (optionalSpecs.length) run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", ...optionalSpecs], dir);
  const consumer = JSON.parse(readFileSync(path.join(dir, "node_modules/h3-mcp/package.json"), "utf8"));
  check(consumer.version === pkg.version, "the consumer did not get the packed h3-mcp");

  // 5. Every entry loads with import() and with require(), to the same names; except the Durable Object
  // entry, which imports workerd's own `cloudflare:workers` and so loads only under workerd.
  const workerdOnly = new Set([`${pkg.name}/tasks/durable-object`]);
  const specifiers = [...targets.keys()].map((s) => (s === "." ? pkg.name : `${pkg.name}/${s.slice(2)}`)).filter((spec) => !workerdOnly.has(spec));
  for (const spec of workerdOnly) check(targets.has(`./${spec.slice(pkg.name.length + 1)}`), `exports has no "${spec}"`);
  writeFileSync(
    path.join(dir, "entries.cjs"),
    `const out = {};
for (const spec of ${JSON.stringify(specifiers)}) out[spec] = Object.keys(require(spec)).sort();
console.log(JSON.stringify(out));`,
  );
  writeFileSync(
    path.join(dir, "entries.mjs"),
    `const out = {};
for (const spec of ${JSON.stringify(specifiers)}) {
  const mod = await import(spec, spec.endsWith(".json") ? { with: { type: "json" } } : undefined);
  out[spec] = Object.keys(spec.endsWith(".json") ? mod.default : mod).filter((k) => k !== "module.exports").sort();
}
console.log(JSON.stringify(out));`,
  );
  const required = JSON.parse(run("node", ["entries.cjs"], dir));
  const loaded = JSON.parse(run("node", ["entries.mjs"], dir));
  for (const spec of specifiers) {
    check(JSON.stringify(required[spec]) === JSON.stringify(loaded[spec]), `require("${spec}") and import("${spec}") differ`);
    check(required[spec]?.length > 0, `"${spec}" exports nothing`);
  }

  // 6. One request through the main entries.
  writeFileSync(
    path.join(dir, "serve.mjs"),
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
`,
  );
  run("node", ["serve.mjs"], dir);

  // 7. The store test kit runs in the consumer with node:test and the in-memory store, runs found by name
  // included: it ships in dist and needs no devDependency (no vitest, no schema library) at run time.
  writeFileSync(
    path.join(dir, "kit.test.mjs"),
    `import { describe, it } from "node:test";
import { memoryTaskStore } from "h3-mcp/tasks";
import { taskStoreSuite } from "h3-mcp/tasks/testing";
taskStoreSuite({ name: "in memory", shared: false, runs: true, open: () => [memoryTaskStore()], runner: { describe, it } });
`,
  );
  // A failing case fails the run (execFileSync throws); the count proves the cases ran at all.
  const passed = /# pass (\d+)/.exec(run("node", ["--test", "--test-reporter=tap", "kit.test.mjs"], dir));
  check(passed !== null && Number(passed[1]) > 100, `the store kit did not run its cases under node:test (${passed?.[1] ?? "none"} passed)`);

  // 8. The testing examples, as a user runs them: the test client and the model paths from the packed
  // "h3-mcp/tasks/testing", under vitest and under node:test (TypeScript through tsx). The consumer lists
  // neither xstate nor any test helper of h3-mcp: the package brings what the examples use.
  const examples = path.join(dir, "testing");
  mkdirSync(examples);
  for (const file of ["server.ts", "tools.test.ts", "tools.node-test.ts"]) copyFileSync(path.join(root, "examples/testing", file), path.join(examples, file));
  const devSpec = (name) => `${name}@${pkg.devDependencies[name]}`;
  run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", "--save-dev", devSpec("vitest"), devSpec("tsx")], dir);
  const consumerDeps = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8"));
  check(!("xstate" in { ...consumerDeps.dependencies, ...consumerDeps.devDependencies }), "the consumer had to list xstate");
  const vitestOut = run("npx", ["--no-install", "vitest", "run", "testing/tools.test.ts", "--reporter=verbose"], dir);
  const vitestPassed = /Tests\s+(\d+) passed/.exec(vitestOut.replace(/\x1b\[[0-9;]*m/g, ""));
  check(vitestPassed !== null && Number(vitestPassed[1]) >= 10, `examples/testing/tools.test.ts did not pass under vitest (${vitestPassed?.[1] ?? "none"} passed)`);
  const nodeOut = run("node", ["--import", "tsx", "--test", "--test-reporter=tap", "testing/tools.node-test.ts"], dir);
  const nodePassed = /# pass (\d+)/.exec(nodeOut);
  check(nodePassed !== null && Number(nodePassed[1]) >= 10 && /# fail 0/.test(nodeOut), `examples/testing/tools.node-test.ts did not pass under node:test (${nodePassed?.[1] ?? "none"} passed)`);

  if (failures.length) {
    console.error(`package check failed:\n- ${failures.join("\n- ")}`);
    process.exitCode = 1;
  } else {
    console.log(
      `package check: ${packed.filename} (${(packed.size / 1024).toFixed(0)} kB packed) ships every exports target; ` +
        `dist imports exactly ${list(imported)}; publint and attw clean; ${specifiers.join(", ")} load with import() and require() (${[...workerdOnly].join(", ")} only under workerd); ` +
        `the store kit passes under node:test; examples/testing pass from the packed entry under vitest (${vitestPassed?.[1]}) and node:test (${nodePassed?.[1]}); a consumer's node_modules is ${(installedKb / 1024).toFixed(1)} MB (h3-mcp and its peer h3; no optional peer)`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
