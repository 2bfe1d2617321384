// What mcpOpenTelemetry() costs above the least any tracer following the MCP semantic conventions must do,
// in one process, paired request by request (bench/lib/paired.ts): the synchronous `echo` tools/call served
// through `app.fetch` by seven apps in a fresh random order per request.
//   (b)  no tracing            (b') a second untraced app: the A/A pair, the noise floor of the run
//   (floor-r) / (floor-u)      the floor plugin below, every span recorded / none sampled
//   (o-r) / (o-u)              mcpOpenTelemetry(), every span recorded / none sampled
//   (floor-r+)                 the floor recording every span, with the recommended attributes h3-mcp also sets
//                              on a recorded span (transport, operation, protocol version, server address), so
//                              (o-r) ÷ (floor-r+) is h3-mcp's own machinery and (floor-r+) ÷ (floor-r) what
//                              those attributes cost
// Served only when `--only` names them, to take the unsampled floor apart: (fu-nometric) without its duration
// record, (fu-nospan) with a span that was never started (a fixed non-recording one) instead of the SDK's,
// (fu-nocontext) calling the request directly instead of inside `context.with`.
// The floor does per request only what the conventions require of any server tracer: one SERVER span with the
// required attributes, started and ended, the request run inside `context.with(trace.setSpan(...))`, and one
// `mcp.server.operation.duration` record with the attributes h3-mcp records, built once since this bench has
// one operation. Both traced pairs run on the real SDK (bench/lib/otel-sdk.ts: a batching span processor and a
// periodic metric reader, exporting to nowhere), each lane with its own providers.
// AsyncLocalStorage is the global context manager for the whole process, so on Node 20 every lane, the
// untraced ones included, pays its process-wide promise hooks alike: this bench measures the per-request work
// of tracing; what AsyncLocalStorage itself costs is the `tracing-context` row of `npm run bench`.
// Bundle it first (tsx names every closure as it is made, which the built package does not):
//   node_modules/.bin/esbuild bench/otel-floor.ts --bundle --platform=node --format=esm --outfile=/tmp/otel-floor.mjs \
//     --log-level=warning --banner:js="import { createRequire } from 'module'; const require = createRequire(import.meta.url);"
//   node /tmp/otel-floor.mjs [--rounds 21] [--n 1500] [--only o-r]   (--only: serve just (b) and these lanes, to profile one)
import type { McpPlugin } from "h3-mcp";
import { mcpOpenTelemetry } from "h3-mcp/otel";
import { parseArgs } from "node:util";
import { createBenchApp } from "./lib/mcp-app.ts";
import { floorTracing } from "./lib/otel-floor-plugin.ts";
import { benchProviders, registerBenchContext } from "./lib/otel-sdk.ts";
import { median, pairedRounds, spread, type Lane } from "./lib/paired.ts";
import { requests, toWebRequest } from "./lib/wire.ts";

const { values } = parseArgs({
  options: { rounds: { type: "string", default: "21" }, n: { type: "string", default: "1500" }, only: { type: "string" } },
});

registerBenchContext();
const echo = requests.echo();
function lane(name: string, plugins: McpPlugin[]): Lane {
  const { app } = createBenchApp({}, { plugins });
  let checked = false;
  return {
    name,
    async serve() {
      const res = await app.fetch(toWebRequest(echo));
      const text = await res.text();
      // An app that answered an error would be measured doing less.
      if (res.status !== 200 || (!checked && !text.includes('"text":"hello"'))) throw new Error(`${name}: HTTP ${res.status}: ${text}`);
      checked = true;
    },
  };
}

const all: Lane[] = [
  lane("b", []),
  lane("b'", []),
  lane("floor-r", [floorTracing(benchProviders(true))]),
  lane("floor-u", [floorTracing(benchProviders(false))]),
  lane("o-r", [mcpOpenTelemetry(benchProviders(true))]),
  lane("o-u", [mcpOpenTelemetry(benchProviders(false))]),
  lane("floor-r+", [floorTracing(benchProviders(true), { recommended: true })]),
];
const diagnoses: Lane[] = [
  lane("fu-nometric", [floorTracing(benchProviders(false), { noMetric: true })]),
  lane("fu-nospan", [floorTracing(benchProviders(false), { noSpan: true })]),
  lane("fu-nocontext", [floorTracing(benchProviders(false), { noContext: true })]),
];
const only = values.only?.split(",");
const lanes = only ? [...all, ...diagnoses].filter((l) => l.name === "b" || only.includes(l.name)) : all;
console.log(`Node ${process.version}, ${values.rounds} rounds × ${values.n} requests per lane`);
const perRound = await pairedRounds(lanes, Number(values.rounds), Number(values.n));

const has = (name: string) => name in perRound;
/** Per round: `x`'s µs over `y`'s, and `x`'s µs minus `y`'s. */
const ratio = (x: string, y: string) => perRound[x]!.map((v, i) => v / perRound[y]![i]!);
const excess = (x: string, y: string) => perRound[x]!.map((v, i) => v - perRound[y]![i]!);
const line = (x: string, y: string) => {
  const r = ratio(x, y);
  const d = excess(x, y);
  const m = median(d);
  return `time ${median(r).toFixed(3)}× (${spread(r)}), ${m >= 0 ? "+" : ""}${m.toFixed(1)} µs (${spread(d, 1)}), throughput ${(1 / median(r)).toFixed(3)}×`;
};
console.log("\nmedian µs per request; against (b), per round: time ratio (range), µs above (b) (range), throughput");
for (const l of lanes) console.log(`${l.name.padEnd(8)} ${median(perRound[l.name]!).toFixed(1).padStart(6)} µs${l.name === "b" ? "" : `   ${line(l.name, "b")}`}`);
console.log("\nper round:");
for (const [x, y, what] of [
  ["o-r", "floor-r", "h3-mcp above the floor, recorded"],
  ["o-u", "floor-u", "h3-mcp above the floor, unsampled"],
  ["o-r", "floor-r+", "h3-mcp's own machinery, recorded"],
  ["floor-r+", "floor-r", "the recommended attributes"],
  ["floor-u", "fu-nometric", "the unsampled floor's duration record"],
  ["floor-u", "fu-nospan", "the unsampled floor's span start and end"],
  ["floor-u", "fu-nocontext", "the unsampled floor's context.with"],
]) {
  if (has(x!) && has(y!)) console.log(`${what}, ${x} ÷ ${y}: ${line(x!, y!)}`);
}
if (has("b'")) console.log(`the noise (A/A), b' ÷ b: ${line("b'", "b")}`);
process.exit(0);
