import { createParser } from "eventsource-parser";

/** Reads an SSE response incrementally: `next()` resolves with each JSON message as it arrives. */
export function sseReader(res: Response) {
  const queue: any[] = [];
  const waiting: ((m: any) => void)[] = [];
  let comments = 0;
  const parser = createParser({
    onEvent(e) {
      const msg = JSON.parse(e.data);
      const w = waiting.shift();
      if (w) w(msg);
      else queue.push(msg);
    },
    onComment() {
      comments++;
    },
  });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let ended = false;
  const pump = (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parser.feed(decoder.decode(value, { stream: true }));
      }
    } catch {
      // cancelled
    }
    ended = true;
  })();
  return {
    next(timeoutMs = 1000): Promise<any> {
      if (queue.length) return Promise.resolve(queue.shift());
      return new Promise((resolve, reject) => {
        const t = setTimeout(() => reject(new Error("no SSE message within " + timeoutMs + "ms")), timeoutMs);
        waiting.push((m) => {
          clearTimeout(t);
          resolve(m);
        });
      });
    },
    /** Resolves true if no message arrives within `ms`. */
    async quiet(ms = 50): Promise<boolean> {
      if (queue.length) return false;
      await new Promise((r) => setTimeout(r, ms));
      return queue.length === 0;
    },
    get ended() {
      return ended;
    },
    /** Comment frames (keep-alives) seen so far. */
    get comments() {
      return comments;
    },
    async close() {
      await reader.cancel();
      await pump;
    },
  };
}
