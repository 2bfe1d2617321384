// A server-sent events body the server writes to while it stays open: a request's progress and logs, a
// listen stream, a legacy session's GET stream. Frames sent before the body starts wait for it; a
// keep-alive comment goes out at an interval; and closing it, whoever closes it (the server, the client
// going away, a write that fails), runs each cleanup once.
import { SSE_KEEPALIVE } from "../protocol/wire.ts";
import { unrefInterval } from "../utils/timers.ts";

export interface SseStreamOptions {
  /** A keep-alive comment this often, so that proxies keep an idle stream open; none when absent. */
  readonly keepAliveMs?: number;
  /** Told the reason when the client closes the stream (after the stream's own cleanups ran). */
  readonly onCancel?: (reason: unknown) => void;
}

export class SseStream {
  #controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  #queued: Uint8Array[] = [];
  #cleanups: (() => void)[] = [];
  #closed = false;
  readonly #options: SseStreamOptions | undefined;

  constructor(options?: SseStreamOptions) {
    this.#options = options;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Whether the response body exists yet; before it does, frames wait in the queue. */
  get started(): boolean {
    return this.#controller !== undefined;
  }

  /** How many frames wait for the body to start. */
  get queued(): number {
    return this.#queued.length;
  }

  /** Writes a frame, or queues it until the body starts; nothing once the stream is closed. */
  send(frame: Uint8Array): void {
    if (this.#closed) return;
    if (this.#controller) this.#write(frame);
    else this.#queued.push(frame);
  }

  /** Runs `cleanup` when the stream closes, or now if it already has. */
  onClose(cleanup: () => void): void {
    if (this.#closed) cleanup();
    else this.#cleanups.push(cleanup);
  }

  /** Ends the stream from the server's side, with `last` as its last frame when the body has started. */
  end(last?: Uint8Array): void {
    if (this.#closed) return;
    if (last && this.#controller) this.#write(last);
    this.close();
  }

  /** Closes the stream and runs every cleanup, once. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    try {
      this.#controller?.close();
    } catch {
      // The client closed it first, or a write already failed.
    }
    for (const cleanup of this.#cleanups.splice(0)) {
      try {
        cleanup();
      } catch {
        // A cleanup failing must not keep the others from running.
      }
    }
  }

  /** The response carrying the stream: `first` (if any), then the queued frames, then what comes later. */
  response(headers: Record<string, string>, first?: Uint8Array): Response {
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#controller = controller;
        if (first) controller.enqueue(first);
        for (const frame of this.#queued) controller.enqueue(frame);
        this.#queued.length = 0;
        const keepAliveMs = this.#options?.keepAliveMs;
        if (keepAliveMs !== undefined && !this.#closed) this.onClose(unrefInterval(keepAliveMs, () => this.#write(SSE_KEEPALIVE)));
      },
      cancel: (reason) => {
        if (this.#closed) return;
        this.close();
        this.#options?.onCancel?.(reason);
      },
    });
    return new Response(body, { status: 200, headers });
  }

  #write(frame: Uint8Array): void {
    try {
      this.#controller!.enqueue(frame);
    } catch {
      // The client went away between two frames.
      this.close();
    }
  }
}
