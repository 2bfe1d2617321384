// Every retained task's owner and expiry, and once it finished its id, origin and `tasks/get` JSON, packed
// outside the JS heap. A live task's id and record (whatever the store keeps of it while it runs) stay on
// the heap beside it, where its run holds them anyway, so a task's bytes are written outside the heap once,
// when it finishes.
//
// Why: on V8 each young-generation collection costs time in proportion to the old generation, so
// a store holding a million tasks as JS objects and strings (even a Map of a million id strings)
// slows down every request the process serves. Here each task is one 32-byte record in a typed
// array, its id and JSON bytes sit side by side in a Buffer chunk (outside the collector's pages),
// and lookups go through an open-addressing index of record positions: the heap holds no object for
// a finished task at all, and a lookup touches about three cache lines wherever the task is.
//
// Tasks sit in a ring in creation order, which with one TTL per store is expiry order: the store
// sweeps from the front and stops at the first task still alive.
import type { TaskStatus } from "../../machines/task.machine.ts";

const CHUNK_BYTES = 1 << 20;
/** Records this large get a chunk of their own rather than wasting the rest of a shared one. */
const OWN_CHUNK_BYTES = CHUNK_BYTES >> 4;
/** Status codes; 0 is a task still running. */
const STATUSES: readonly (TaskStatus | undefined)[] = [undefined, "completed", "failed", "cancelled"];
const LIVE = 0;
const INITIAL = 64;

// A record: eight 32-bit words, the last two being the expiry as a float64.
const WORDS = 8;
const HASH = 0;
const OWNER = 1;
const CHUNK = 2;
const AT = 3;
/** Once finished: the id's byte length in the low 16 bits, the origin's (which follows the id) in the high 16. */
const KEY_LENGTH = 4;
/** Status in the top 3 bits, the JSON's byte length (which follows the id's bytes) in the rest. */
const STATUS_JSON = 5;
const EXPIRY = 3; // in float64 units
const JSON_BITS = 29;
const JSON_MASK = (1 << JSON_BITS) - 1;
const HALF = 0xffff;

export class TaskTable<Live = unknown> {
  // The ring: `count` tasks from `head`, positions modulo the capacity (a power of two).
  private head = 0;
  private size = 0;
  private records = new Uint32Array(INITIAL * WORDS);
  private expiries = new Float64Array(this.records.buffer);
  /** Each live task's record and id, at its position; dropped when it finishes. */
  private lives: (Live | undefined)[] = new Array(INITIAL);
  private liveIds: (string | undefined)[] = new Array(INITIAL);

  // Open addressing with linear probing: position + 1, 0 for empty; at most half full.
  private index = new Int32Array(INITIAL * 2);

  // Bytes: appended to the current chunk; a chunk goes once nothing in it is referenced.
  // Node Buffers: their UTF-8 read and write are several times cheaper than TextEncoder/TextDecoder's.
  private chunks: (Buffer | undefined)[] = [];
  private chunkRefs: number[] = [];
  private freeChunks: number[] = [];
  private current = -1;
  private fill = 0;

  // Owners by reference count: how many retained tasks each one holds.
  private ownerValues: (string | undefined)[] = [];
  private ownerRefs: number[] = [];
  private ownerIds = new Map<string, number>();
  private freeOwners: number[] = [];

  get count(): number {
    return this.size;
  }

  /** Distinct owners held, for leak checks. */
  get owners(): number {
    return this.ownerIds.size;
  }

  /** Tasks retained for `owner`. */
  ownerCount(owner: string): number {
    const id = this.ownerIds.get(owner);
    return id === undefined ? 0 : this.ownerRefs[id]!;
  }

  /** Bytes held outside the JS heap, for memory figures. */
  get externalBytes(): number {
    let bytes = this.records.byteLength + this.index.byteLength;
    for (const chunk of this.chunks) bytes += chunk?.byteLength ?? 0;
    return bytes;
  }

  /** Appends a running task with its record; returns its position (valid until the next `add`). */
  add(id: string, owner: string, expiresAt: number, live: Live): number {
    if (this.size === this.capacity) this.grow();
    const p = (this.head + this.size) & (this.capacity - 1);
    this.size++;
    const hash = hashOf(id);
    const r = p * WORDS;
    this.records[r + HASH] = hash;
    this.records[r + OWNER] = this.ownerId(owner);
    this.records[r + STATUS_JSON] = LIVE;
    this.expiries[p * 4 + EXPIRY] = expiresAt;
    this.lives[p] = live;
    this.liveIds[p] = id;
    this.insert(p, hash);
    return p;
  }

  /** The task's position, or -1. */
  find(id: string): number {
    const mask = this.index.length - 1;
    const hash = hashOf(id);
    for (let i = hash & mask; ; i = (i + 1) & mask) {
      const entry = this.index[i]!;
      if (entry === 0) return -1;
      const p = entry - 1;
      if (this.records[p * WORDS + HASH] === hash && this.id(p) === id) return p;
    }
  }

  id(p: number): string {
    const live = this.liveIds[p];
    if (live !== undefined) return live;
    const r = p * WORDS;
    const at = this.records[r + AT]!;
    return this.chunks[this.records[r + CHUNK]!]!.toString("utf8", at, at + (this.records[r + KEY_LENGTH]! & HALF));
  }

  owner(p: number): string {
    return this.ownerValues[this.records[p * WORDS + OWNER]!]!;
  }

  /** A live task's record; undefined once it finished. */
  live(p: number): Live | undefined {
    return this.lives[p];
  }

  expiresAt(p: number): number {
    return this.expiries[p * 4 + EXPIRY]!;
  }

  /** The final status, or undefined while the task runs. */
  status(p: number): TaskStatus | undefined {
    return STATUSES[this.records[p * WORDS + STATUS_JSON]! >>> JSON_BITS];
  }

  /** Keeps a live task's id, its origin's JSON ("" for none) and its `tasks/get` JSON, now that it finished. */
  finish(p: number, status: TaskStatus, json: string, origin = ""): void {
    const code = STATUSES.indexOf(status);
    if (code <= LIVE) throw new TypeError(`Not a final status: ${status}`);
    const id = this.liveIds[p];
    if (id === undefined) throw new TypeError("This task has already finished");
    const r = p * WORDS;
    const [chunk, at, length, originLength, idLength] = this.write(id, origin, json);
    const jsonLength = length - idLength - originLength;
    if (jsonLength > JSON_MASK || originLength > HALF || idLength > HALF) throw new RangeError(`A task result of ${jsonLength} bytes is too large to keep`);
    this.lives[p] = undefined;
    this.liveIds[p] = undefined;
    this.records[r + CHUNK] = chunk;
    this.records[r + AT] = at;
    this.records[r + KEY_LENGTH] = (idLength | (originLength << 16)) >>> 0;
    this.records[r + STATUS_JSON] = ((code << JSON_BITS) | jsonLength) >>> 0;
  }

  json(p: number): string {
    const r = p * WORDS;
    const lengths = this.records[r + KEY_LENGTH]!;
    const at = this.records[r + AT]! + (lengths & HALF) + (lengths >>> 16);
    return this.chunks[this.records[r + CHUNK]!]!.toString("utf8", at, at + (this.records[r + STATUS_JSON]! & JSON_MASK));
  }

  /** A finished task's origin JSON, or "" when it has none. */
  origin(p: number): string {
    const r = p * WORDS;
    const lengths = this.records[r + KEY_LENGTH]!;
    if (lengths >>> 16 === 0) return "";
    const at = this.records[r + AT]! + (lengths & HALF);
    return this.chunks[this.records[r + CHUNK]!]!.toString("utf8", at, at + (lengths >>> 16));
  }

  /** The oldest task's position, or -1 when empty. */
  front(): number {
    return this.size === 0 ? -1 : this.head;
  }

  /** Drops the oldest task. */
  dropFront(): void {
    const p = this.head;
    const r = p * WORDS;
    this.unindex(p);
    if (this.records[r + STATUS_JSON] !== LIVE) this.release(this.records[r + CHUNK]!);
    this.lives[p] = undefined;
    this.liveIds[p] = undefined;
    const owner = this.records[r + OWNER]!;
    if (--this.ownerRefs[owner]! === 0) {
      this.ownerIds.delete(this.ownerValues[owner]!);
      this.ownerValues[owner] = undefined;
      this.freeOwners.push(owner);
    }
    this.head = (this.head + 1) & (this.capacity - 1);
    this.size--;
  }

  private get capacity(): number {
    return this.records.length / WORDS;
  }

  // --- Internal ---

  private insert(p: number, hash: number): void {
    const mask = this.index.length - 1;
    let i = hash & mask;
    while (this.index[i] !== 0) i = (i + 1) & mask;
    this.index[i] = p + 1;
  }

  /** Removes `p` from the index, shifting later entries of its probe run back so no lookup stops short. */
  private unindex(p: number): void {
    const index = this.index;
    const mask = index.length - 1;
    let hole = this.records[p * WORDS + HASH]! & mask;
    while (index[hole] !== p + 1) hole = (hole + 1) & mask;
    for (let i = (hole + 1) & mask; index[i] !== 0; i = (i + 1) & mask) {
      const home = this.records[(index[i]! - 1) * WORDS + HASH]! & mask;
      // The entry at i may fill the hole unless its home lies cyclically in (hole, i].
      const stays = hole <= i ? hole < home && home <= i : hole < home || home <= i;
      if (stays) continue;
      index[hole] = index[i]!;
      hole = i;
    }
    index[hole] = 0;
  }

  /** Doubles the ring (oldest task first at position 0) and rebuilds the index for it. */
  private grow(): void {
    const old = this.capacity;
    const records = new Uint32Array(old * 2 * WORDS);
    records.set(this.records.subarray(this.head * WORDS));
    records.set(this.records.subarray(0, this.head * WORDS), (old - this.head) * WORDS);
    this.records = records;
    this.expiries = new Float64Array(records.buffer);
    const lives: (Live | undefined)[] = new Array(old * 2);
    const liveIds: (string | undefined)[] = new Array(old * 2);
    for (let p = 0; p < this.size; p++) {
      lives[p] = this.lives[(this.head + p) & (old - 1)];
      liveIds[p] = this.liveIds[(this.head + p) & (old - 1)];
    }
    this.lives = lives;
    this.liveIds = liveIds;
    this.head = 0;
    this.index = new Int32Array(old * 4);
    for (let p = 0; p < this.size; p++) this.insert(p, records[p * WORDS + HASH]!);
  }

  /** Stores three strings' UTF-8 bytes back to back; returns [chunk, offset, total length, middle's length, first's length]. */
  private write(first: string, middle: string, last: string): [number, number, number, number, number] {
    const firstLength = Buffer.byteLength(first);
    const middleLength = middle ? Buffer.byteLength(middle) : 0;
    const length = firstLength + middleLength + Buffer.byteLength(last);
    let chunk: number;
    let at = 0;
    if (length >= OWN_CHUNK_BYTES) {
      // A record with a chunk of its own leaves the shared one current.
      chunk = this.newChunk(Buffer.allocUnsafeSlow(length));
    } else {
      if (this.current < 0 || this.fill + length > CHUNK_BYTES) {
        const previous = this.current;
        // Unpooled: a chunk lives as long as what it holds, and must not pin a shared pool slab.
        this.current = this.newChunk(Buffer.allocUnsafeSlow(CHUNK_BYTES));
        this.fill = 0;
        if (previous >= 0 && this.chunkRefs[previous] === 0) this.dropChunk(previous);
      }
      chunk = this.current;
      at = this.fill;
      this.fill += length;
    }
    const bytes = this.chunks[chunk]!;
    bytes.write(first, at);
    if (middle) bytes.write(middle, at + firstLength);
    if (last) bytes.write(last, at + firstLength + middleLength);
    this.chunkRefs[chunk]!++;
    return [chunk, at, length, middleLength, firstLength];
  }

  private release(chunk: number): void {
    if (--this.chunkRefs[chunk]! === 0 && chunk !== this.current) this.dropChunk(chunk);
  }

  private newChunk(bytes: Buffer): number {
    const id = this.freeChunks.pop() ?? this.chunks.length;
    this.chunks[id] = bytes;
    this.chunkRefs[id] = 0;
    return id;
  }

  private dropChunk(id: number): void {
    this.chunks[id] = undefined;
    this.freeChunks.push(id);
  }

  private ownerId(owner: string): number {
    let id = this.ownerIds.get(owner);
    if (id === undefined) {
      id = this.freeOwners.pop() ?? this.ownerValues.length;
      this.ownerValues[id] = owner;
      this.ownerRefs[id] = 0;
      this.ownerIds.set(owner, id);
    }
    this.ownerRefs[id]!++;
    return id;
  }
}

/** FNV-1a over UTF-16 code units, with a final mix so that linear probing sees spread-out low bits. */
function hashOf(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  return h >>> 0;
}
