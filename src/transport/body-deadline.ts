// The time a handler gives each request's body. A timer per body would cost every request a setTimeout and
// a clearTimeout (a few hundred ns on Node); so where one context serves every request (Node, Bun, Deno) one
// timer serves every body of the handler: a read costs a place in a list, and the timer, ticking only while
// reads wait, fails the reads past due. Workers tie a timer to the request that set it (and drop it when that
// request ends), so there each body has its own.

/** Fails `late` unless `done` is called first, `ms` after `watch` was. */
export interface BodyDeadlines {
  readonly ms: number;
  watch(late: () => void): { done(): void };
}

const onWorkers = (globalThis as { navigator?: { userAgent?: unknown } }).navigator?.userAgent === "Cloudflare-Workers";

/** The deadlines of one handler, each `ms` after its read began. */
export function createBodyDeadlines(ms: number): BodyDeadlines {
  return onWorkers ? timerPerBody(ms) : sharedTimer(ms);
}

// --- Internal ---

function timerPerBody(ms: number): BodyDeadlines {
  return {
    ms,
    watch(late) {
      const timer = setTimeout(late, ms);
      return { done: () => clearTimeout(timer) };
    },
  };
}

/** A read waiting for its body, in the list of reads by age (an intrusive list: adding and removing cost a few writes). */
class Waiter {
  prev: Waiter | undefined = undefined;
  next: Waiter | undefined = undefined;
  constructor(
    readonly tick: number,
    readonly late: () => void,
    readonly list: WaiterList,
  ) {}
  done(): void {
    this.list.remove(this);
  }
}

class WaiterList {
  head: Waiter | undefined = undefined;
  tail: Waiter | undefined = undefined;
  add(waiter: Waiter): void {
    waiter.prev = this.tail;
    if (this.tail) this.tail.next = waiter;
    else this.head = waiter;
    this.tail = waiter;
  }
  remove(waiter: Waiter): void {
    // Removed already (done after late, or twice): nothing to do.
    if (waiter.prev === undefined && this.head !== waiter) return;
    if (waiter.prev) waiter.prev.next = waiter.next;
    else this.head = waiter.next;
    if (waiter.next) waiter.next.prev = waiter.prev;
    else this.tail = waiter.prev;
    waiter.prev = waiter.next = undefined;
  }
}

// The timer ticks every quarter of the deadline while reads wait, and a read is late at the fifth tick after
// the one it began in. The first of those ticks comes at most a quarter of the deadline after the read began,
// so the read fails between 1× and 1.25× the deadline after it began (later only when the event loop is
// busy). No clock is read per body: on some machines a clock reading costs as much as the rest of a small
// body's read.
const STEPS = 4;

function sharedTimer(ms: number): BodyDeadlines {
  const list = new WaiterList();
  const step = ms / STEPS;
  let tick = 0;
  let ticking = false;
  const onTick = () => {
    tick++;
    for (let waiter = list.head; waiter && tick - waiter.tick > STEPS; waiter = list.head) {
      list.remove(waiter);
      waiter.late();
    }
    if (list.head) schedule();
    else ticking = false;
  };
  const schedule = () => {
    setTimeout(onTick, step).unref?.();
  };
  return {
    ms,
    watch(late) {
      const waiter = new Waiter(tick, late, list);
      list.add(waiter);
      if (!ticking) {
        ticking = true;
        schedule();
      }
      return waiter;
    },
  };
}
