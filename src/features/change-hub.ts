/** Change announcements an app makes, fanned out to listen streams and legacy session streams. */
export type ListKind = "tools" | "prompts" | "resources";

export type HubEvent = { kind: "list_changed"; list: ListKind } | { kind: "resource_updated"; uri: string };

export interface Hub {
  subscribe(listener: (event: HubEvent) => void): () => void;
  publish(event: HubEvent): void;
  /** Live subscribers, for leak checks. */
  readonly size: number;
}

export function createHub(): Hub {
  const listeners = new Set<(event: HubEvent) => void>();
  return {
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    publish(event) {
      for (const listener of listeners) {
        try {
          listener(event);
        } catch {
          // One broken stream must not stop the others.
        }
      }
    },
    get size() {
      return listeners.size;
    },
  };
}
