// Every retained task's id, owner, expiry and (once finished) `tasks/get` JSON, packed outside
// the JS heap.
//
// Why: on V8 each young-generation collection costs time in proportion to the old generation, so
// a store holding a million tasks as JS objects and strings (even a Map of a million id strings)
// slows down every request the process serves. Here the per-task fields live in typed arrays, the
// id and JSON bytes in Buffer chunks (outside the collector's pages), and lookups go through an
// open-addressing hash table over the same typed arrays: the heap holds no per-task object at all.
//
// Tasks sit in a ring in creation order, which with one TTL per store is expiry order: the store
// sweeps from the front and stops at the first task still alive.
import type { TaskStateValue } from "../../machines/task.machine.ts";

const CHUNK_BYTES = 1 << 20;
/** Records this large get a chunk of their own rather than wasting the rest of a shared one. */
const OWN_CHUNK_BYTES = CHUNK_BYTES >> 4;
/** Status codes; 0 is a task still running. */
const STATUSES: readonly (TaskStateValue | undefined)[] = [undefined, "completed", "failed", "cancelled"];
const LIVE = 0;
const INITIAL = 64;

export class TaskTable {
  // The ring: `count` tasks from `head`, positions modulo the capacity (a power of two).
  private head = 0;
  private size = 0;
  private expiry = new Float64Array(INITIAL);
  private hashOf = new Uint32Array(INITIAL);
  private ownerOf = new Uint32Array(INITIAL);
  private statusOf = new Uint8Array(INITIAL);
  private keyChunk = new Uint32Array(INITIAL);
  private keyAt = new Uint32Array(INITIAL);
  private keyLength = new Uint32Array(INITIAL);
  private jsonChunk = new Uint32Array(INITIAL);
  private jsonAt = new Uint32Array(INITIAL);
  private jsonLength = new Uint32Array(INITIAL);

  // Open addressing with linear probing: position + 1, 0 for empty; at most half full.
  private index = new Int32Array(INITIAL * 2);

  // Bytes: appended to the current chunk; a chunk goes once nothing in it is referenced.
  // Node Buffers: their UTF-8 read and write are several times cheaper than TextEncoder/TextDecoder's.
  private chunks: (Buffer | undefined)[] = [];
  private chunkRefs: number[] = [];
  private freeChunks: number[] = [];
  private current = -1;
  private fill = 0;

  // Owners (the `bind` values) by reference count; id 0 is `undefined`, the owner without `bind`.
  private ownerValues: unknown[] = [undefined];
  private ownerRefs: number[] = [Infinity];
  private ownerIds = new Map<unknown, number>([[undefined, 0]]);
  private freeOwners: number[] = [];

  get count(): number {
    return this.size;
  }

  /** Distinct owners held (beyond `undefined`), for leak checks. */
  get owners(): number {
    return this.ownerIds.size - 1;
  }

  /** Bytes held outside the JS heap, for memory figures. */
  get externalBytes(): number {
    let bytes = this.expiry.byteLength * 2 + this.hashOf.byteLength * 8 + this.statusOf.byteLength + this.index.byteLength;
    for (const chunk of this.chunks) bytes += chunk?.byteLength ?? 0;
    return bytes;
  }

  /** Appends a running task; returns its position (valid until the next `add`). */
  add(id: string, owner: unknown, expiresAt: number): number {
    if (this.size === this.expiry.length) this.grow();
    const p = (this.head + this.size) & (this.expiry.length - 1);
    this.size++;
    const hash = hashOf(id);
    this.expiry[p] = expiresAt;
    this.hashOf[p] = hash;
    this.ownerOf[p] = this.ownerId(owner);
    this.statusOf[p] = LIVE;
    const [chunk, at, length] = this.write(id);
    this.keyChunk[p] = chunk;
    this.keyAt[p] = at;
    this.keyLength[p] = length;
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
      if (this.hashOf[p] === hash && this.id(p) === id) return p;
    }
  }

  id(p: number): string {
    const at = this.keyAt[p]!;
    return this.chunks[this.keyChunk[p]!]!.toString("utf8", at, at + this.keyLength[p]!);
  }

  owner(p: number): unknown {
    return this.ownerValues[this.ownerOf[p]!];
  }

  expiresAt(p: number): number {
    return this.expiry[p]!;
  }

  /** The final status, or undefined while the task runs. */
  status(p: number): TaskStateValue | undefined {
    return STATUSES[this.statusOf[p]!];
  }

  /** Keeps a finished task's `tasks/get` JSON. */
  finish(p: number, status: TaskStateValue, json: string): void {
    const code = STATUSES.indexOf(status);
    if (code <= LIVE) throw new TypeError(`Not a final status: ${status}`);
    this.statusOf[p] = code;
    const [chunk, at, length] = this.write(json);
    this.jsonChunk[p] = chunk;
    this.jsonAt[p] = at;
    this.jsonLength[p] = length;
  }

  json(p: number): string {
    const at = this.jsonAt[p]!;
    return this.chunks[this.jsonChunk[p]!]!.toString("utf8", at, at + this.jsonLength[p]!);
  }

  /** The oldest task's position, or -1 when empty. */
  front(): number {
    return this.size === 0 ? -1 : this.head;
  }

  /** Drops the oldest task. */
  dropFront(): void {
    const p = this.head;
    this.unindex(p);
    this.release(this.keyChunk[p]!);
    if (this.statusOf[p] !== LIVE) this.release(this.jsonChunk[p]!);
    const owner = this.ownerOf[p]!;
    if (--this.ownerRefs[owner]! === 0) {
      this.ownerIds.delete(this.ownerValues[owner]);
      this.ownerValues[owner] = undefined;
      this.freeOwners.push(owner);
    }
    this.head = (this.head + 1) & (this.expiry.length - 1);
    this.size--;
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
    let hole = this.hashOf[p]! & mask;
    while (index[hole] !== p + 1) hole = (hole + 1) & mask;
    for (let i = (hole + 1) & mask; index[i] !== 0; i = (i + 1) & mask) {
      const home = this.hashOf[index[i]! - 1]! & mask;
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
    const old = this.expiry.length;
    const size = old * 2;
    const order = <T extends Float64Array<ArrayBuffer> | Uint32Array<ArrayBuffer> | Uint8Array<ArrayBuffer>>(from: T): T => {
      const to = new (from.constructor as new (n: number) => T)(size);
      to.set(from.subarray(this.head));
      to.set(from.subarray(0, this.head), old - this.head);
      return to;
    };
    this.expiry = order(this.expiry);
    this.hashOf = order(this.hashOf);
    this.ownerOf = order(this.ownerOf);
    this.statusOf = order(this.statusOf);
    this.keyChunk = order(this.keyChunk);
    this.keyAt = order(this.keyAt);
    this.keyLength = order(this.keyLength);
    this.jsonChunk = order(this.jsonChunk);
    this.jsonAt = order(this.jsonAt);
    this.jsonLength = order(this.jsonLength);
    this.head = 0;
    this.index = new Int32Array(size * 2);
    for (let p = 0; p < this.size; p++) this.insert(p, this.hashOf[p]!);
  }

  /** Stores a string's UTF-8 bytes; returns [chunk, offset, length]. */
  private write(text: string): [number, number, number] {
    const length = Buffer.byteLength(text);
    if (length >= OWN_CHUNK_BYTES) {
      const chunk = this.newChunk(Buffer.allocUnsafeSlow(length));
      this.chunks[chunk]!.write(text, 0);
      this.chunkRefs[chunk]!++;
      return [chunk, 0, length];
    }
    if (this.current < 0 || this.fill + length > CHUNK_BYTES) {
      const previous = this.current;
      // Unpooled: a chunk lives as long as what it holds, and must not pin a shared pool slab.
      this.current = this.newChunk(Buffer.allocUnsafeSlow(CHUNK_BYTES));
      this.fill = 0;
      if (previous >= 0 && this.chunkRefs[previous] === 0) this.dropChunk(previous);
    }
    const at = this.fill;
    this.chunks[this.current]!.write(text, at);
    this.fill += length;
    this.chunkRefs[this.current]!++;
    return [this.current, at, length];
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

  private ownerId(owner: unknown): number {
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
