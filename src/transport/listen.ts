// `subscriptions/listen`: one long-lived SSE stream per request, acknowledged first, with the
// request id as `subscriptionId` on every message.
import type { H3Event } from "h3";
import { invalidParams } from "../protocol/errors.ts";
import type { Hub } from "../features/change-hub.ts";
import type { ListenStream, McpExtensionPlugin } from "../features/extension-plugin.ts";
import type { JsonObject, RequestId } from "../protocol/types.ts";
import { META } from "../protocol/types.ts";
import { type ResultMeta, type WireResponse, SSE_HEADERS, sseFrame, toNotificationMessage, toResultMessage } from "../protocol/wire.ts";
import { unrefTimerAt } from "../utils/timers.ts";
import { SseStream } from "./sse-stream.ts";
import { isThenable } from "../utils/is-thenable.ts";

/** Core list filters and whether this server advertises the list. */
export interface ListenCore {
  toolsListChanged: boolean;
  promptsListChanged: boolean;
  resourcesListChanged: boolean;
  resourceSubscriptions: boolean;
  /** Whether this caller may follow a resource (it holds the resource's scopes); others are left out of the agreement. */
  mayFollow?: (uri: string) => boolean;
}

/** A listen stream the server can end: the result first, then the close. */
export interface EndableStream {
  end(): void;
}

/** What a listen stream is opened with: the request, and what the handler serving it holds. */
export interface ListenStreamOptions {
  event: H3Event;
  id: RequestId;
  params: JsonObject;
  hub: Hub;
  core: ListenCore;
  plugins: Iterable<McpExtensionPlugin>;
  /** The handler's open streams (its leak checks count them): the stream is in it while it is open. */
  open: Set<EndableStream>;
  keepAliveMs: number;
  resultMeta?: ResultMeta;
  /** When the request's token expires (ms since the epoch): the stream ends then, and the client comes back with a new one. */
  expiresAt?: number;
  /** Told the acknowledgement's params (`{ notifications }`) when the stream is answered. */
  acknowledged?: (params: JsonObject) => void;
}

export function openListenStream(options: ListenStreamOptions): WireResponse | Promise<WireResponse> {
  const { event, params, hub, core, open } = options;
  const requested = params.notifications;
  if (typeof requested !== "object" || requested === null || Array.isArray(requested)) {
    throw invalidParams("subscriptions/listen needs params.notifications");
  }
  const wanted = requested as JsonObject;
  const stream = createStream(options);
  open.add(stream);
  stream.onClose(() => open.delete(stream));

  const agreed: JsonObject = {};
  try {
    const lists = new Set<string>();
    if (wanted.toolsListChanged === true && core.toolsListChanged) lists.add("tools");
    if (wanted.promptsListChanged === true && core.promptsListChanged) lists.add("prompts");
    if (wanted.resourcesListChanged === true && core.resourcesListChanged) lists.add("resources");
    const uris = new Set<string>();
    if (Array.isArray(wanted.resourceSubscriptions) && core.resourceSubscriptions) {
      for (const uri of wanted.resourceSubscriptions) if (typeof uri === "string" && (core.mayFollow?.(uri) ?? true)) uris.add(uri);
    }
    for (const list of lists) agreed[`${list}ListChanged`] = true;
    if (uris.size) agreed.resourceSubscriptions = [...uris];
    if (lists.size || uris.size) {
      const off = hub.subscribe((e) => {
        if (e.kind === "list_changed" && lists.has(e.list)) stream.notify(`notifications/${e.list}/list_changed`, {});
        else if (e.kind === "resource_updated" && uris.has(e.uri)) stream.notify("notifications/resources/updated", { uri: e.uri });
      });
      stream.onClose(off);
    }
    const later: Promise<void>[] = [];
    for (const plugin of options.plugins) {
      for (const filter of plugin.listen ?? []) {
        if (!(filter.key in wanted)) continue;
        const value = filter.agree(event, wanted[filter.key], stream);
        // A filter backed by a shared store answers with a promise: it agrees once the store has answered.
        if (isThenable(value)) {
          later.push(
            Promise.resolve(value).then((v) => {
              if (v !== undefined) agreed[filter.key] = v;
            }),
          );
        } else if (value !== undefined) agreed[filter.key] = value;
      }
    }
    if (later.length) {
      return Promise.all(later).then(
        () => stream.respond(agreed),
        (error) => {
          stream.close();
          throw error;
        },
      );
    }
  } catch (error) {
    stream.close();
    throw error;
  }
  return stream.respond(agreed);
}

// --- Internal ---

type OpenListenStream = ListenStream & EndableStream & { close(): void; respond(agreed: JsonObject): WireResponse };

function createStream({ id, keepAliveMs, resultMeta, expiresAt, acknowledged }: ListenStreamOptions): OpenListenStream {
  const meta = { [META.subscriptionId]: id };
  const sse = new SseStream({ keepAliveMs });

  const stream: OpenListenStream = {
    subscriptionId: id,
    get closed() {
      return sse.closed;
    },
    notify(method, params) {
      if (sse.closed) return;
      sse.send(sseFrame(toNotificationMessage(method, { ...params, _meta: { ...(params._meta as JsonObject), ...meta } })));
    },
    onClose(callback) {
      sse.onClose(callback);
    },
    /** A server-initiated end: the result first, then the close. Not before the stream is answered. */
    end() {
      if (sse.closed || !sse.started) return;
      sse.end(sseFrame(toResultMessage(id, { resultType: "complete", _meta: meta }, resultMeta)));
    },
    close() {
      sse.close();
    },
    respond(agreed) {
      acknowledged?.({ notifications: agreed });
      const ack = sseFrame(toNotificationMessage("notifications/subscriptions/acknowledged", { notifications: agreed, _meta: meta }));
      const response = sse.response(SSE_HEADERS, ack);
      if (expiresAt !== undefined && !sse.closed) sse.onClose(unrefTimerAt(expiresAt, Date.now, () => stream.end()));
      return response;
    },
  };
  return stream;
}
