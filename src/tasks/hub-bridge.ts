// List-changed and resource-updated announcements made on one instance reach listen streams on all of
// them, through a store outside this process (Redis, Postgres): each local announcement is published on
// the store's hub channel, and each one heard from another instance is announced here.
import type { Hub, HubEvent } from "../features/change-hub.ts";

export function createHubBridge(publish: (message: string) => Promise<unknown>, instanceId: string) {
  const hubs = new Set<Hub>();
  let relaying = false;

  return {
    /** Bridges a handler's hub; returns the detach. */
    attach(hub: Hub): () => void {
      hubs.add(hub);
      const off = hub.subscribe((event) => {
        // What came from the channel is already everywhere.
        if (relaying) return;
        publish(JSON.stringify({ o: instanceId, e: event })).catch(() => {
          // The store is down: the announcement still reached this instance's own streams.
        });
      });
      return () => {
        off();
        hubs.delete(hub);
      };
    },
    /** A message from the hub channel. */
    onMessage(raw: string) {
      let message: { o?: unknown; e?: HubEvent };
      try {
        message = JSON.parse(raw);
      } catch {
        return;
      }
      if (message.o === instanceId || typeof message.e !== "object" || message.e === null) return;
      relaying = true;
      try {
        for (const hub of hubs) hub.publish(message.e);
      } finally {
        relaying = false;
      }
    },
    get size() {
      return hubs.size;
    },
  };
}
