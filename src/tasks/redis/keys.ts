// Every key and channel of one store. The `{prefix}` hash tag puts all of them in one Redis Cluster
// slot, so the scripts may touch several keys at once.

export interface StoreKeys {
  task(id: string): string;
  lease(worker: string): string;
  /** Present while some listen stream waits on the task: only then is a worker's own change published. */
  listen(id: string): string;
  /** Sorted set of one owner's retained task ids, scored by expiry (kept only with a per-owner cap). */
  owned(owner: string): string;
  /** What a lease key starts with; the read script appends the task's worker id. */
  readonly leasePrefix: string;
  /** What every key starts with (`{prefix}:`): the scripts of runs found by name build their keys from it. */
  readonly prefix: string;
  /** Sorted set of the instances holding tasks of runs found by name, by lease deadline (see run-scripts.ts). */
  readonly instances: string;
  /** Sorted set of every retained task id, scored by expiry: the count the cap is checked against. */
  readonly tasks: string;
  /** The channel every task change is published on. */
  readonly changes: string;
  /** The channel of list-changed and resource-updated announcements. */
  readonly hub: string;
}

export function storeKeys(prefix: string): StoreKeys {
  const tag = `{${prefix}}`;
  return {
    task: (id) => `${tag}:task:${id}`,
    lease: (worker) => `${tag}:lease:${worker}`,
    listen: (id) => `${tag}:listen:${id}`,
    owned: (owner) => `${tag}:owner:${owner}`,
    leasePrefix: `${tag}:lease:`,
    prefix: `${tag}:`,
    instances: `${tag}:instances`,
    tasks: `${tag}:tasks`,
    changes: `${tag}:changes`,
    hub: `${tag}:hub`,
  };
}
