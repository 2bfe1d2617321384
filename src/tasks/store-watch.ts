// A task store's outages, seen from the calls the runtime makes: the first call that fails because the store
// cannot be reached (its 503, `taskStoreUnavailable`) begins an outage, told once; the first call begun during
// it that succeeds ends it, told once. Every failure of the outage carries it, so the transport tells `onError`
// once, with the first request it failed. A store the runtime calls through this pays one property lookup and,
// for a call answered by a promise, one more reaction to it.
import type { McpStoreAvailability } from "../features/extension-plugin.ts";
import { markOutage, McpJsonRpcError, STORE_UNAVAILABLE_STATUS, TaskStoreOutageError, type StoreOutage } from "../protocol/errors.ts";
import { isThenable } from "../utils/is-thenable.ts";
import type { TaskStore } from "./store.ts";

interface Outage extends StoreOutage {
  readonly since: number;
  failures: number;
}

/**
 * `store`, every call watched for outages, told to each of `reports` (added at mount, one per handler the
 * plugin is installed in).
 */
export function watchStore<S extends TaskStore>(store: S, now: () => number, reports: Set<(change: McpStoreAvailability) => void>): S {
  let outage: Outage | undefined;
  // Calls begun before an outage may still succeed after it began: only one begun during it ends it.
  let epoch = 0;
  const tell = (change: McpStoreAvailability) => {
    for (const report of reports) report(change);
  };
  const failed = (error: unknown) => {
    if (!McpJsonRpcError.isError(error) || error.status !== STORE_UNAVAILABLE_STATUS) return;
    if (!outage) {
      const since = now();
      outage = { since, failures: 0, told: false, error: new TaskStoreOutageError(since, error) };
      epoch++;
      tell({ available: false, at: since, error: outage.error });
    }
    outage.failures++;
    markOutage(error, outage);
  };
  const answered = (begun: number) => {
    if (!outage || begun !== epoch) return;
    const at = now();
    const { since, failures } = outage;
    outage = undefined;
    tell({ available: true, at, downMs: at - since, failures });
  };
  const methods = new Map<PropertyKey, unknown>();
  return new Proxy(store, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== "function") return value;
      let watched = methods.get(key);
      if (watched === undefined) {
        const method = value as (...args: unknown[]) => unknown;
        watched = (...args: unknown[]) => {
          const begun = epoch;
          let result: unknown;
          try {
            result = method.apply(target, args);
          } catch (error) {
            failed(error);
            throw error;
          }
          // Only an answer that came back from the store proves it reachable, not a synchronous one.
          if (isThenable(result)) result.then(() => answered(begun), failed);
          return result;
        };
        methods.set(key, watched);
      }
      return watched;
    },
  });
}
