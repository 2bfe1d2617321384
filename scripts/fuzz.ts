// The wire fuzzer at full size: `npm run fuzz` (FUZZ_RUNS, default 100 000; FUZZ_SEED to replay a run).
// The same property runs with 5 000 cases in test/reliability/fuzz.test.ts.
import { KNOWN_DEVIATIONS, runFuzz } from "../test/reliability/fuzz-wire.ts";

const runs = Number(process.env.FUZZ_RUNS ?? 100_000);
const seed = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const report = await runFuzz({
  runs,
  seed,
  onProgress: (done) => process.stderr.write(`\r${done} / ${runs}`),
});
process.stderr.write("\n");
const perSecond = Math.round((report.runs / report.ms) * 1000);
console.log(`fuzz: ${report.runs} cases, seed ${report.seed}, ${(report.ms / 1000).toFixed(1)} s (${perSecond} cases/s)`);
console.log("answers by HTTP status and JSON-RPC code:");
for (const [signature, n] of Object.entries(report.signatures).sort((a, b) => b[1] - a[1])) console.log(`  ${signature.padEnd(22)} ${n}`);
for (const [name, entry] of Object.entries(report.known)) {
  if (!entry) continue;
  console.log(`known deviation "${name}" (${KNOWN_DEVIATIONS[name]}): ${entry.count} case(s), e.g.\n  ${entry.example.slice(0, 600)}`);
}
if (report.failed) {
  console.error(report.report);
  console.error(`replay with FUZZ_SEED=${report.seed}`);
  process.exitCode = 1;
} else {
  console.log("no failures");
}
