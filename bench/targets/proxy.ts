// A round-robin HTTP balancer (the test suite's) in its own process, in front of UPSTREAMS
// (comma-separated origins): the two-instance rows and their one-instance baseline go through it.
import { startRoundRobinProxy } from "../../test/helpers/round-robin-proxy.ts";
import { announceReady, exitOnSignal } from "../lib/target.ts";

const upstreams = (process.env.UPSTREAMS ?? "").split(",").filter(Boolean);
const proxy = await startRoundRobinProxy(upstreams);
exitOnSignal(() => proxy.close());
announceReady({ target: "proxy", origin: proxy.origin });
