// Named runs executed by BullMQ worker processes, beside BullMQ's own ceiling, on one throwaway
// redis-server in one run:
//  - BullMQ alone: jobs accepted per second (`queue.add`, the executor's job shape), and jobs completed per
//    second by 1 and by 4 worker processes whose processor does nothing.
//   node --import tsx bench/bullmq.ts [--n 2000] [--concurrency 8] [--json]
import { parseArgs } from "node:util";
import { startRedis } from "../test/helpers/redis-server.ts";
import { log, fmtInt } from "./lib/format.ts";
import { rawRates } from "./lib/bullmq-raw.ts";

const { values } = parseArgs({
  options: { n: { type: "string", default: "2000" }, concurrency: { type: "string", default: "8" }, json: { type: "boolean", default: false } },
});
const N = Number(values.n);
const CONCURRENCY = Number(values.concurrency);

const redis = await startRedis();
try {
  log(`- BullMQ alone: ${N} jobs`);
  const raw = await rawRates(redis.url, N, [1, 4], CONCURRENCY);
  const report = { n: N, concurrency: CONCURRENCY, raw };
  if (values.json) console.log(JSON.stringify(report));
  else {
    console.log(`| measure | per second |`);
    console.log(`| --- | ---: |`);
    console.log(`| BullMQ alone: jobs accepted (64 adds in flight) | ${fmtInt(raw.enqueuePerSec)} |`);
    for (const [workers, rate] of Object.entries(raw.processPerSec)) {
      console.log(`| BullMQ alone: jobs completed, ${workers} worker process${workers === "1" ? "" : "es"} × concurrency ${CONCURRENCY} | ${fmtInt(rate)} |`);
    }
  }
} finally {
  await redis.stop();
}
