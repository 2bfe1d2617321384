// What a scenario is, and the pieces scenarios are made of: how a target is prepared (a fixed
// request, a filled store, fresh tasks to consume) and what a correct answer looks like.
import type { Target } from "./proc.ts";
import { benchOrigin, type ProcessKey } from "./processes.ts";
import type { TargetKind } from "./target-kinds.ts";
import { requests, type RawRequest } from "./wire.ts";
import { fmtCount, log } from "./format.ts";

export interface Scenario {
  id: string;
  title: string;
  /** Which process serves each target kind in this scenario. */
  processes: Partial<Record<TargetKind, ProcessKey>>;
  /** The ceiling its ratios are taken against (default bare h3). */
  base?: TargetKind;
  /**
   * Prepares a target's process and returns the requests to cycle through (ceilings get `fixed`, or
   * `sameAsH3Mcp`). `prepared` holds the requests of the targets prepared before: references come last.
   */
  prepare: (t: Target, kind: TargetKind, prepared: ReadonlyMap<TargetKind, RawRequest[]>) => Promise<RawRequest[]>;
  /**
   * For operations that consume their task (answering, cancelling): the requests of one run, each
   * sent once, made before the run (untimed) for `n` fresh tasks. References run for the duration.
   */
  perRun?: (t: Target, n: number, kind: TargetKind) => Promise<RawRequest[]>;
  /** Kinds whose correct answer is an error with this HTTP status (a refusal), not a 2xx result. */
  refusedWith?: Partial<Record<TargetKind, number>>;
  /** What a correct h3-mcp / SDK / task-actor answer looks like (ceilings always answer their fixed result). */
  check: (result: Record<string, unknown>) => boolean;
  /** Stop these processes after the scenario (after its group, when it has one). */
  release?: ProcessKey[];
  /** Runs only when `--only` names it (a diagnosis, not a row of the report everyone reads). */
  optIn?: boolean;
  /** Consecutive scenarios of one group are prepared together and their rounds interleaved. */
  group?: string;
}

export const isText = (r: Record<string, unknown>) => JSON.stringify(r.content) === JSON.stringify([{ type: "text", text: "hello" }]);
export const isAck = (r: Record<string, unknown>) => r.resultType === "complete" && r.status === undefined;
export const isWorkingHandle = (r: Record<string, unknown>) => r.resultType === "task" && r.status === "working";
export const fixed = (request: RawRequest) => async () => [request];

/**
 * A reference cycles through the very requests h3-mcp gets (a ceiling answers each with its fixed result).
 * The load generator shares the machine, and its cost per request grows with the number of different
 * requests it cycles through (about 5 µs more for 1,000 than for one, measured here): a ceiling sent one
 * fixed request would be paired with a lighter client than h3-mcp's.
 */
export function sameAsH3Mcp(prepared: ReadonlyMap<TargetKind, RawRequest[]>): RawRequest[] {
  const reqs = prepared.get("h3-mcp");
  if (!reqs) throw new Error("sameAsH3Mcp: h3-mcp is prepared first");
  return reqs;
}

/** Grows the target's store to `to` tasks (through its own API) and returns tasks/get requests for a sample of them. */
export async function fillStore(t: Target, to: number): Promise<RawRequest[]> {
  const res = await fetch(`${benchOrigin(t)}/bench/fill`, { method: "POST", body: JSON.stringify({ to }) });
  if (res.status !== 200) throw new Error(`fill: HTTP ${res.status} ${await res.text()}`);
  const body = (await res.json()) as { size: number; created: number; ms: number; sample: string[] };
  if (body.size !== to) throw new Error(`fill: store holds ${body.size}, expected ${to}`);
  if (body.created) log(`  filled ${t.name} to ${fmtCount(to)} tasks (+${body.created} in ${(body.ms / 1000).toFixed(1)} s)`);
  return body.sample.map((id) => requests.getTask(id));
}

/** n tasks parked in input_required (task_ask) or working (task_hang), made through the target's own API. */
async function freshTasks(t: Target, kind: "parked" | "working", n: number): Promise<string[]> {
  const res = await fetch(`${benchOrigin(t)}/bench/tasks`, { method: "POST", body: JSON.stringify({ kind, n }) });
  if (res.status !== 200) throw new Error(`${kind} tasks: HTTP ${res.status} ${await res.text()}`);
  return ((await res.json()) as { ids: string[] }).ids;
}

export const answering = async (t: Target, n: number) => (await freshTasks(t, "parked", n)).map(requests.answerTask);
export const cancelling = async (t: Target, n: number) => (await freshTasks(t, "working", n)).map(requests.cancelTask);

/** `kind` tokens minted by an auth target's own issuer (bench/lib/bench-issuer.ts). */
async function mintTokens(t: Target, kind: "good" | "bad-signature" | "bad-mixed", n: number): Promise<string[]> {
  const res = await fetch(`${t.origin}/bench/tokens`, { method: "POST", body: JSON.stringify({ kind, n }) });
  if (res.status !== 200) throw new Error(`tokens: HTTP ${res.status} ${await res.text()}`);
  return ((await res.json()) as { tokens: string[] }).tokens;
}

const withBearer = (request: RawRequest, token: string): RawRequest => ({ ...request, headers: { ...request.headers, authorization: `Bearer ${token}` } });

/** The echo call with one good token reused (`jwt`), or cycling through 1,000 bad tokens of every kind (`jwt-bad`). */
export async function bearerEcho(t: Target, kind: TargetKind): Promise<RawRequest[]> {
  if (kind === "jwt") return [withBearer(requests.echo(), (await mintTokens(t, "good", 1))[0]!)];
  // The app without auth cannot mint: a token of the same length and shape, which it never reads.
  if (kind === "jwt-header") return [withBearer(requests.echo(), `${"x".repeat(36)}.${"y".repeat(300)}.${"z".repeat(86)}`)];
  if (kind === "jwt-bad") return (await mintTokens(t, "bad-mixed", 1000)).map((token) => withBearer(requests.echo(), token));
  return [requests.echo()];
}

/** n echo calls, each with a token never seen before (good for `jwt-first`, a bad signature for `jwt-bad-first`), or plain. */
export async function firstUseEcho(t: Target, n: number, kind: TargetKind): Promise<RawRequest[]> {
  if (kind === "jwt-first" || kind === "jwt-bad-first") {
    return (await mintTokens(t, kind === "jwt-first" ? "good" : "bad-signature", n)).map((token) => withBearer(requests.echo(), token));
  }
  return Array.from({ length: n }, () => requests.echo());
}
