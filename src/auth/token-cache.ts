// Verified tokens kept for reuse, so a client that sends the same token again pays a map lookup instead of
// a signature check or an introspection. Keyed by the whole token string (a different token can never
// hit), each entry dropped at its deadline (never past the token's expiry), the oldest dropped first when
// full. One cache per guard, and a guard protects one resource: verdicts never cross audiences.

interface Entry<V> {
  value: V;
  until: number;
}

/** A bounded map from token to verdict whose entries end at their own deadline. */
export class TokenCache<V> {
  readonly #entries = new Map<string, Entry<V>>();
  constructor(readonly max: number) {}

  /** The verdict for `token`, unless there is none or its deadline passed (then it is dropped). */
  get(token: string, now: number): V | undefined {
    const entry = this.#entries.get(token);
    if (entry === undefined) return undefined;
    if (now < entry.until) return entry.value;
    this.#entries.delete(token);
    return undefined;
  }

  /** Keeps `value` for `token` until `until` (ms since the epoch); nothing when that is not in the future. */
  set(token: string, value: V, until: number, now: number): void {
    if (!(until > now) || this.max <= 0) return;
    this.#entries.delete(token);
    if (this.#entries.size >= this.max) this.#evict(now);
    this.#entries.set(token, { value, until });
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Drops what expired among the oldest, and the oldest entry if all are live (insertion order). */
  #evict(now: number): void {
    for (const [token, entry] of this.#entries) {
      this.#entries.delete(token);
      if (entry.until > now) return;
    }
  }
}
