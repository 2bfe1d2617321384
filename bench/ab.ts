// Two builds of h3-mcp in one process (bundled by bench/ab-build.sh), paired request by request:
// each round serves every lane (A's and B's scenarios) in a fresh random order, again and again, through
// `app.fetch`, and keeps each request's time; a round's figure is the mean of its fastest 90% (a preempted or collected request
// on a shared machine is dropped, the rest compared). Row (f)'s app and bare h3 of each build run
// alongside, so creation is also given as a share of (f). `--b` the same bundle as `--a` measures the
// noise between identical variants.
//   node --import tsx bench/ab.ts --a /tmp/main.mjs --b /tmp/here.mjs [--rounds 9] [--n 1500] [--only create,echo,get]
// (`get`: tasks/get of one finished task, read again and again.)
import { parseArgs } from "node:util";
import { median, pairedRounds, spread, type Lane } from "./lib/paired.ts";

const { values } = parseArgs({
  options: { a: { type: "string" }, b: { type: "string" }, rounds: { type: "string", default: "9" }, n: { type: "string", default: "1500" }, only: { type: "string" } },
});
if (!values.a || !values.b) throw new Error("--a and --b name two bundles made by bench/ab-build.sh");
const A = await import(values.a);
// A second import of the same file would be the same module: copy it under another name for B.
const B = values.b === values.a ? await import(`${values.b}?b`) : await import(values.b);
const N = Number(values.n);

async function server(build: any, scenario: string): Promise<Lane["serve"]> {
  const app = scenario === "actor" ? build.createBareActorApp() : scenario === "bare" ? build.createBareApp() : build.createBenchApp().app;
  let raw = scenario === "echo" || scenario === "bare" ? build.requests.echo() : build.requests.createTask();
  if (scenario === "get") {
    // One finished task, read again and again: the kept answer's path.
    const created = await (await app.fetch(build.toWebRequest(raw))).json();
    raw = build.requests.getTask(created.result.taskId);
  }
  // A build that answers with an error instead of a task or a result would be measured doing less.
  const expected = scenario === "create" || scenario === "actor" ? '"resultType":"task"' : '"text":"hello"';
  let checked = false;
  return async () => {
    const res = await app.fetch(build.toWebRequest(raw));
    const text = await res.text();
    if (res.status !== 200 || (!checked && !text.includes(expected))) throw new Error(`${scenario}: HTTP ${res.status}: ${text}`);
    checked = true;
  };
}

const scenarios = values.only?.split(",") ?? ["create", "echo"];
const lanes: Lane[] = [];
for (const s of scenarios) {
  lanes.push({ name: `A ${s}`, serve: await server(A, s) }, { name: `B ${s}`, serve: await server(B, s) });
}
// Each build's own row (f) and bare h3, so both builds' copies of h3 and xstate serve alike.
if (scenarios.includes("create")) {
  for (const [x, build] of [["A", A], ["B", B]] as const) lanes.push({ name: `${x} (f) actor`, serve: await server(build, "actor") }, { name: `${x} bare`, serve: await server(build, "bare") });
}

const perRound = await pairedRounds(lanes, Number(values.rounds), N);
const ratio = (x: string, y: string) => perRound[x]!.map((v, i) => v / perRound[y]![i]!);
for (const s of scenarios) {
  const r = ratio(`A ${s}`, `B ${s}`);
  console.log(`${s}: A ${median(perRound[`A ${s}`]!).toFixed(1)} µs, B ${median(perRound[`B ${s}`]!).toFixed(1)} µs; A ÷ B median ${median(r).toFixed(3)} (${spread(r)})`);
}
if (scenarios.includes("create")) {
  for (const x of ["A", "B"]) {
    const r = ratio(`${x} (f) actor`, `${x} create`);
    console.log(`(f) ÷ ${x} creation: median ${median(r).toFixed(3)} (${spread(r)})`);
  }
}
