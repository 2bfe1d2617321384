// The time bound of the store's Redis commands: every command has the same one, so a single timer
// for the oldest command under way serves them all.

/** A command under way: settled once, by its answer or by its deadline, whichever comes first. */
export class Pending {
  settled = false;
  readonly deadline: number;
  constructor(
    private readonly resolve: (value: unknown) => void,
    private readonly reject: (error: unknown) => void,
    timeoutMs: number,
    private readonly done: () => void,
  ) {
    this.deadline = performance.now() + timeoutMs;
  }
  settle(ok: boolean, value: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.done();
    ok ? this.resolve(value) : this.reject(value);
  }
}

/**
 * The deadlines of the commands under way, in the order they were sent. Every command has the same
 * time bound, so that order is also the order of their deadlines, and one timer, set for the oldest,
 * serves them all: no timer per command. Answers come back in order on one connection, so the
 * settled ones are mostly at the front, where they are dropped.
 */
export function createDeadlines(expire: (pending: Pending) => void) {
  const queue: (Pending | undefined)[] = [];
  let head = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  // Settled commands leave the queue at once: it holds their promises' resolvers and so their answers,
  // which, kept until the timer fired, would survive young-generation collections for seconds.
  const drop = () => {
    while (head < queue.length && queue[head]!.settled) queue[head++] = undefined;
    // Compacted now and then, not on every answer.
    if (head > 1024 && head * 2 > queue.length) {
      queue.splice(0, head);
      head = 0;
    }
  };
  const arm = () => {
    drop();
    if (head === queue.length) {
      queue.length = head = 0;
      timer = undefined;
      return;
    }
    timer = setTimeout(fire, Math.max(1, queue[head]!.deadline - performance.now()));
  };
  const fire = () => {
    const now = performance.now();
    drop();
    while (head < queue.length && queue[head]!.deadline <= now) {
      const pending = queue[head]!;
      queue[head++] = undefined;
      if (!pending.settled) expire(pending);
    }
    arm();
  };
  return {
    add(pending: Pending) {
      queue.push(pending);
      if (timer === undefined) arm();
    },
    /** A command settled: those settled at the front leave the queue. */
    drop,
    /** Nothing is under way: the timer goes (it would hold an idle process open). */
    clear() {
      clearTimeout(timer);
      timer = undefined;
      queue.length = head = 0;
    },
  };
}
