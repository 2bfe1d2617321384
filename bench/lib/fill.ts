// Fills a task store through the public API: tools/call on a task tool, served in-process by
// `app.fetch`, exactly as an HTTP client's request would be, minus the socket.
import type { H3 } from "h3";
import { requests, toWebRequest, type RawRequest } from "./wire.ts";

export interface FillResult {
  created: number;
  ms: number;
}

/**
 * Creates `count` tasks with `request` (a tools/call answered by a task), `concurrency` at a time.
 * Calls `onId` with each task id, in creation order.
 */
export async function fillTasks(
  app: H3,
  count: number,
  onId: (id: string) => void = () => {},
  request: RawRequest = requests.createTask(),
  concurrency = 64,
): Promise<FillResult> {
  const started = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next++;
      const res = await app.fetch(toWebRequest(request));
      const text = await res.text();
      if (res.status !== 200) throw new Error(`fill: HTTP ${res.status}: ${text}`);
      const message = JSON.parse(text) as { result?: { resultType?: string; taskId?: string } };
      if (message.result?.resultType !== "task" || typeof message.result.taskId !== "string") {
        throw new Error(`fill: expected a task handle, got ${text}`);
      }
      onId(message.result.taskId);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return { created: count, ms: performance.now() - started };
}

/** A uniform sample of every id it was shown (reservoir sampling), for lookups spread over the whole store. */
export class Reservoir {
  readonly items: string[] = [];
  private seen = 0;
  constructor(private readonly size: number) {}
  add(id: string): void {
    this.seen++;
    if (this.items.length < this.size) this.items.push(id);
    else {
      const j = Math.floor(Math.random() * this.seen);
      if (j < this.size) this.items[j] = id;
    }
  }
}

/** Polls tasks/get (in-process) until every one of `ids` shows `status`; throws after `timeoutMs`. */
export async function waitForStatus(app: H3, ids: string[], status: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (const id of ids) {
    for (;;) {
      const res = await app.fetch(toWebRequest(requests.getTask(id)));
      const text = await res.text();
      const got = (JSON.parse(text) as { result?: { status?: string } }).result?.status;
      if (got === status) break;
      if (Date.now() > deadline) throw new Error(`task ${id} is ${got ?? text.slice(0, 200)}, expected ${status}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
}
