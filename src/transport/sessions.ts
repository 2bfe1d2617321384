import { nanoid } from "nanoid";
import type { McpSessionEnd } from "../features/extension-plugin.ts";
import type { ClientCapabilities, Implementation, LoggingLevel } from "../protocol/types.ts";
import type { McpAuthInfo } from "../features/authorization.ts";

/** A legacy (initialize-based) session. */
export interface LegacySession {
  id: string;
  protocolVersion: string;
  clientCapabilities: ClientCapabilities;
  clientInfo?: Implementation;
  logLevel?: LoggingLevel;
  /** Who opened it (issuer and subject), when the handler authenticates: only they may use it. */
  principal?: string;
  lastSeen: number;
  /** Closes the session's GET stream, if one is open. */
  closeStream?: () => void;
  /** Resource URIs the session subscribed to (`resources/subscribe`). */
  subscriptions: Set<string>;
  /** Told when the session ends (plugins watching sessions). */
  ended?: (end: McpSessionEnd) => void;
  /** Server-to-client requests waiting for the client's response, by JSON-RPC id. */
  pending: Map<string, (response: { result?: unknown; error?: { code: number; message: string } }) => void>;
  /** How many server-to-client requests the session was sent: the next one's id follows on. */
  requestsSent: number;
}

export interface SessionOptions {
  /** Sessions kept at once; the least recently used one is dropped past it. Default 10 000. */
  maxSessions?: number;
  /** A session unused this long is forgotten. Default 30 minutes. */
  idleTimeoutMs?: number;
}

/**
 * Sessions in a Map kept in least-recently-used order, so the idle sweep only looks at the
 * front and stops at the first live one.
 */
export function createSessionStore(options: SessionOptions = {}, now: () => number = Date.now) {
  const max = options.maxSessions ?? 10_000;
  const idle = options.idleTimeoutMs ?? 30 * 60_000;
  const sessions = new Map<string, LegacySession>();

  const drop = (session: LegacySession, reason: McpSessionEnd["reason"]) => {
    sessions.delete(session.id);
    session.closeStream?.();
    session.ended?.({ reason, at: now() });
  };
  const sweep = () => {
    const cutoff = now() - idle;
    for (const session of sessions.values()) {
      if (session.lastSeen > cutoff && sessions.size <= max) break;
      drop(session, session.lastSeen > cutoff ? "evicted" : "idle");
    }
  };

  return {
    create(init: Omit<LegacySession, "id" | "lastSeen" | "subscriptions" | "pending" | "requestsSent" | "ended">): LegacySession {
      sweep();
      // nanoid's default alphabet gives 126 bits of entropy at 21 characters; 32 gives 192.
      const session: LegacySession = { ...init, id: nanoid(32), lastSeen: now(), subscriptions: new Set(), pending: new Map(), requestsSent: 0 };
      sessions.set(session.id, session);
      if (sessions.size > max) sweep();
      return session;
    },
    /** The session, unless unknown, idle too long, or opened by someone other than `auth`. */
    get(id: string, auth?: McpAuthInfo): LegacySession | undefined {
      sweep();
      const session = sessions.get(id);
      if (!session || session.principal !== principalOf(auth)) return undefined;
      session.lastSeen = now();
      sessions.delete(id);
      sessions.set(id, session);
      return session;
    },
    delete(id: string): boolean {
      const session = sessions.get(id);
      if (!session) return false;
      drop(session, "deleted");
      return true;
    },
    /** Closes every session's GET stream; the sessions stay. */
    closeStreams() {
      for (const session of sessions.values()) session.closeStream?.();
    },
    get size() {
      return sessions.size;
    },
  };
}

export type SessionStore = ReturnType<typeof createSessionStore>;

/** Whom a session belongs to: the token's issuer and subject, as one string; undefined without auth. */
export function principalOf(auth: McpAuthInfo | undefined): string | undefined {
  return auth && JSON.stringify([auth.issuer, auth.subject]);
}
