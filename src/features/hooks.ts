// The plugins' hooks (each bound to its plugin, so `this` is the plugin), composed once at mount into one
// function per hook, so that the request path asks one question ("is there a hook?") and a handler whose
// plugins have none pays nothing more.
import type { H3Event } from "h3";
import type { McpAuthRefusal } from "./authorization.ts";
import type { McpClientFailure, McpPluginHooks, McpSessionEnd, McpSessionInfo, McpStoreAvailability, McpTaskRunInfo } from "./extension-plugin.ts";
import type { ToolDefinition } from "./tools.ts";
import type { JsonObject } from "../protocol/types.ts";
import type { MaybePromise } from "../utils/maybe-promise.ts";

/** Runs a request's method inside every `wrapRequest`, the first plugin outermost. */
export type RequestHooks = (event: H3Event, method: () => MaybePromise<JsonObject>) => MaybePromise<JsonObject>;

/** Runs a task's work inside every `wrapTaskRun`. */
export type TaskRunHooks = (task: McpTaskRunInfo, work: () => MaybePromise<JsonObject>) => MaybePromise<JsonObject>;

/** Runs a tool's call (or a task's result) inside every `wrapToolCall`. */
export type ToolCallHooks = (
  event: H3Event,
  tool: ToolDefinition<any>,
  call: () => MaybePromise<JsonObject>,
  task?: { readonly taskId: string },
) => Promise<JsonObject>;

/** Every hook of a handler's plugins, composed; a hook no plugin has is undefined. */
export interface PluginHooks {
  readonly request?: RequestHooks;
  readonly taskRun?: TaskRunHooks;
  readonly toolCall?: ToolCallHooks;
  /** Every `beforeToolCall`, in installation order. */
  readonly beforeToolCall?: (event: H3Event, tool: ToolDefinition<any>) => void;
  /** The plugins' contributions to a new task's origin, merged; undefined when none contributes. */
  readonly taskOrigin?: (event: H3Event) => JsonObject | undefined;
  /** Tells every `watchSession` of a new session; returns what to call at its end (undefined when nobody asked). */
  readonly watchSession?: (session: McpSessionInfo) => ((end: McpSessionEnd) => void) | undefined;
  /** Every `clientError`; an observer that throws is skipped. */
  readonly clientError?: (failure: McpClientFailure, event: H3Event) => void;
  /** Every `authRefused`; an observer that throws is skipped. */
  readonly authRefused?: (refusal: McpAuthRefusal, event: H3Event) => void;
  /** Every `taskStoreAvailability`; an observer that throws is skipped. */
  readonly taskStoreAvailability?: (change: McpStoreAvailability) => void;
}

export function composeHooks(plugins: readonly McpPluginHooks[]): PluginHooks {
  return {
    request: composeRequestHooks(plugins),
    taskRun: composeTaskRunHooks(plugins),
    toolCall: composeToolCallHooks(plugins),
    beforeToolCall: composeBeforeToolCall(plugins),
    taskOrigin: composeTaskOrigin(plugins),
    watchSession: composeWatchSession(plugins),
    clientError: composeObservers(plugins.flatMap((p) => (p.clientError ? [p.clientError.bind(p)] : []))),
    authRefused: composeObservers(plugins.flatMap((p) => (p.authRefused ? [p.authRefused.bind(p)] : []))),
    taskStoreAvailability: composeObservers<McpStoreAvailability, void>(
      plugins.flatMap((p) => (p.taskStoreAvailability ? [p.taskStoreAvailability.bind(p)] : [])),
    ),
  };
}

// --- Internal ---

type Around<A> = (arg: A, next: () => MaybePromise<JsonObject>) => MaybePromise<JsonObject>;

/** Hooks of the `(arg, next)` shape nested into one, the first outermost; undefined for none. */
function composeAround<A>(hooks: readonly Around<A>[]): Around<A> | undefined {
  let composed: Around<A> | undefined;
  for (let i = hooks.length - 1; i >= 0; i--) {
    const hook = hooks[i]!;
    const inner = composed;
    composed = inner ? (arg, next) => hook(arg, () => inner(arg, next)) : hook;
  }
  return composed;
}

function composeRequestHooks(plugins: readonly McpPluginHooks[]): RequestHooks | undefined {
  return composeAround(plugins.flatMap((p) => (p.wrapRequest ? [p.wrapRequest.bind(p)] : [])));
}

function composeTaskRunHooks(plugins: readonly McpPluginHooks[]): TaskRunHooks | undefined {
  return composeAround(plugins.flatMap((p) => (p.wrapTaskRun ? [p.wrapTaskRun.bind(p)] : [])));
}

function composeToolCallHooks(plugins: readonly McpPluginHooks[]): ToolCallHooks | undefined {
  const wrappers = plugins.flatMap((p) => (p.wrapToolCall ? [p.wrapToolCall.bind(p)] : []));
  if (!wrappers.length) return undefined;
  return (event, tool, call, task) => {
    let run = call;
    for (let i = wrappers.length - 1; i >= 0; i--) {
      const wrap = wrappers[i]!;
      const next = run;
      // A wrapper's `next` is always a promise, rejected rather than thrown.
      const nextPromise = async () => next();
      run = () => Promise.resolve(task ? wrap(event, tool, nextPromise, task) : wrap(event, tool, nextPromise));
    }
    return Promise.resolve(run());
  };
}

function composeBeforeToolCall(plugins: readonly McpPluginHooks[]): PluginHooks["beforeToolCall"] {
  const gates = plugins.flatMap((p) => (p.beforeToolCall ? [p.beforeToolCall.bind(p)] : []));
  if (!gates.length) return undefined;
  if (gates.length === 1) return gates[0];
  return (event, tool) => {
    for (const gate of gates) gate(event, tool);
  };
}

function composeTaskOrigin(plugins: readonly McpPluginHooks[]): PluginHooks["taskOrigin"] {
  const origins = plugins.flatMap((p) => (p.taskOrigin ? [p.taskOrigin.bind(p)] : []));
  if (!origins.length) return undefined;
  return (event) => {
    let merged: JsonObject | undefined;
    for (const origin of origins) {
      const part = origin(event);
      if (part) merged = merged ? { ...merged, ...part } : { ...part };
    }
    return merged;
  };
}

function composeWatchSession(plugins: readonly McpPluginHooks[]): PluginHooks["watchSession"] {
  const watchers = plugins.flatMap((p) => (p.watchSession ? [p.watchSession.bind(p)] : []));
  if (!watchers.length) return undefined;
  return (session) => {
    const ends: ((end: McpSessionEnd) => void)[] = [];
    for (const watch of watchers) {
      try {
        const end = watch(session);
        if (end) ends.push(end);
      } catch {
        // An observer's failure never fails the session.
      }
    }
    if (!ends.length) return undefined;
    return (end) => {
      for (const fn of ends) {
        try {
          fn(end);
        } catch {
          // As above.
        }
      }
    };
  };
}

/** Observers told one after the other, each failure swallowed (an observer never changes an answer); undefined for none. */
function composeObservers<A, E = H3Event>(observers: readonly ((arg: A, event: E) => void)[]): ((arg: A, event: E) => void) | undefined {
  if (!observers.length) return undefined;
  return (arg, event) => {
    for (const observe of observers) {
      try {
        observe(arg, event);
      } catch {
        // As watchSession's.
      }
    }
  };
}
