// List-changed and resource-updated announcements made on one instance reach listen streams on all
// of them: each local announcement is published, and each one from elsewhere is announced here.
import type { Hub, HubEvent } from "../../features/change-hub.ts";
import type { Connection } from "./connection.ts";

export function createHubBridge(conn: Connection, channel: string, instanceId: string) {
  const hubs = new Set<Hub>();
  let relaying = false;

  return {
    /** Bridges a handler's hub; returns the detach. */
    attach(hub: Hub): () => void {
      hubs.add(hub);
      const off = hub.subscribe((event) => {
        // What came from Redis is already everywhere.
        if (relaying) return;
        conn.command(["PUBLISH", channel, JSON.stringify({ o: instanceId, e: event })]).catch(() => {
          // Redis down: the announcement still reached this instance's own streams.
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
