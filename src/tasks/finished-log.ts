// Finished tasks, packed outside the JS heap.
//
// A retained finished task is read-only: its `tasks/get` JSON, its owner, its expiry. Kept as JS
// objects and strings, a million of them put a gigabyte on the old generation, and on V8 every
// young-generation collection then costs time in proportion to that old generation — every
// request slows down with the store's size. Here the JSON bytes live in ArrayBuffer chunks (outside
// the collector's pages) and the per-task fields in typed arrays indexed by a slot number, so the
// heap holds only the store's id → slot map.
import type { TaskStateValue } from "../../machines/task.machine.ts";

const CHUNK_BYTES = 1 << 20;
/** Records this large get a chunk of their own rather than wasting the rest of a shared one. */
const OWN_CHUNK_CHARS = CHUNK_BYTES >> 4;
const STATUSES: readonly TaskStateValue[] = ["working", "input_required", "completed", "failed", "cancelled"];

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * A task whose actor reached a final state and was stopped. Its final snapshot is kept as the
 * one thing a client can still ask of it: the `tasks/get` result, serialised once (it can no longer change).
 */
export class FinishedTask {
  constructor(
    readonly owner: unknown,
    readonly expiresAt: number,
    readonly status: TaskStateValue,
    /** The `tasks/get` result JSON of the final snapshot. */
    readonly json: string,
  ) {}
}

export class FinishedLog {
  // One entry per slot.
  private expiry = new Float64Array(64);
  private chunkOf = new Uint32Array(64);
  private offsetOf = new Uint32Array(64);
  private lengthOf = new Uint32Array(64);
  private ownerOf = new Uint32Array(64);
  private statusOf = new Uint8Array(64);
  private freeSlots: number[] = [];
  private slotsUsed = 0;

  // JSON bytes, appended to the current chunk; a chunk goes once no record in it is left.
  private chunks: (Uint8Array | undefined)[] = [];
  private chunkRecords: number[] = [];
  private freeChunks: number[] = [];
  private current = -1;
  private fill = 0;

  // Owners (the `bind` values) by reference count; slot 0 is `undefined`, the owner without `bind`.
  private ownerValues: unknown[] = [undefined];
  private ownerRefs: number[] = [Infinity];
  private ownerIds = new Map<unknown, number>([[undefined, 0]]);
  private freeOwners: number[] = [];

  /** Distinct owners held (beyond `undefined`), for leak checks. */
  get owners(): number {
    return this.ownerIds.size - 1;
  }

  /** Bytes held outside the heap, for the memory figures. */
  get externalBytes(): number {
    let bytes = this.expiry.byteLength * 2 + this.chunkOf.byteLength * 3 + this.statusOf.byteLength;
    for (const chunk of this.chunks) bytes += chunk?.byteLength ?? 0;
    return bytes;
  }

  /** Stores a finished task; returns its slot. */
  add(record: FinishedTask): number {
    const slot = this.freeSlots.pop() ?? this.newSlot();
    this.expiry[slot] = record.expiresAt;
    this.statusOf[slot] = STATUSES.indexOf(record.status);
    this.ownerOf[slot] = this.ownerId(record.owner);
    this.write(slot, record.json);
    return slot;
  }

  expiresAt(slot: number): number {
    return this.expiry[slot]!;
  }

  /** Compared with ===, as `bind` promises. */
  ownedBy(slot: number, owner: unknown): boolean {
    return this.ownerValues[this.ownerOf[slot]!] === owner;
  }

  read(slot: number): FinishedTask {
    const start = this.offsetOf[slot]!;
    const bytes = this.chunks[this.chunkOf[slot]!]!.subarray(start, start + this.lengthOf[slot]!);
    return new FinishedTask(this.ownerValues[this.ownerOf[slot]!], this.expiry[slot]!, STATUSES[this.statusOf[slot]!]!, decoder.decode(bytes));
  }

  remove(slot: number): void {
    const chunk = this.chunkOf[slot]!;
    if (--this.chunkRecords[chunk]! === 0 && chunk !== this.current) this.dropChunk(chunk);
    const owner = this.ownerOf[slot]!;
    if (--this.ownerRefs[owner]! === 0) {
      this.ownerIds.delete(this.ownerValues[owner]);
      this.ownerValues[owner] = undefined;
      this.freeOwners.push(owner);
    }
    this.freeSlots.push(slot);
  }

  private write(slot: number, json: string): void {
    if (json.length >= OWN_CHUNK_CHARS) {
      const bytes = encoder.encode(json);
      const chunk = this.newChunk(bytes);
      // A record with a chunk of its own leaves the shared one current.
      this.place(slot, chunk, 0, bytes.length);
      return;
    }
    if (this.current >= 0) {
      const { read, written } = encoder.encodeInto(json, this.chunks[this.current]!.subarray(this.fill));
      if (read === json.length) return this.append(slot, written);
    }
    const previous = this.current;
    this.current = this.newChunk(new Uint8Array(CHUNK_BYTES));
    this.fill = 0;
    if (previous >= 0 && this.chunkRecords[previous] === 0) this.dropChunk(previous);
    // A fresh chunk holds at least OWN_CHUNK_CHARS × 3 bytes, the most such a string can encode to.
    const { written } = encoder.encodeInto(json, this.chunks[this.current]!);
    this.append(slot, written);
  }

  private append(slot: number, written: number): void {
    this.place(slot, this.current, this.fill, written);
    this.fill += written;
  }

  private place(slot: number, chunk: number, offset: number, length: number): void {
    this.chunkOf[slot] = chunk;
    this.offsetOf[slot] = offset;
    this.lengthOf[slot] = length;
    this.chunkRecords[chunk]!++;
  }

  private newChunk(bytes: Uint8Array): number {
    const id = this.freeChunks.pop() ?? this.chunks.length;
    this.chunks[id] = bytes;
    this.chunkRecords[id] = 0;
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

  private newSlot(): number {
    const slot = this.slotsUsed++;
    if (slot === this.expiry.length) this.grow(slot * 2);
    return slot;
  }

  private grow(size: number): void {
    const grown = <T extends Float64Array | Uint32Array | Uint8Array>(from: T): T => {
      const to = new (from.constructor as new (n: number) => T)(size);
      to.set(from);
      return to;
    };
    this.expiry = grown(this.expiry);
    this.chunkOf = grown(this.chunkOf);
    this.offsetOf = grown(this.offsetOf);
    this.lengthOf = grown(this.lengthOf);
    this.ownerOf = grown(this.ownerOf);
    this.statusOf = grown(this.statusOf);
  }
}
