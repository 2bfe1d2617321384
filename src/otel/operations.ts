// What every request of one operation (a method, with its tool or prompt, under one protocol version) shares:
// its span name and the attribute sets of its span and its duration metric, built once and kept.
import type { Attributes } from "@opentelemetry/api";
import { ATTR, TOOL_ERROR } from "./conventions.ts";

/** What every request of one method (and tool or prompt) under one protocol version shares. */
export interface Operation {
  /** `{mcp.method.name} {target}`, or the method alone. */
  readonly name: string;
  /** The span's attributes known before it starts (the sampler sees them). */
  readonly span: Attributes;
  /** `mcp.server.operation.duration`'s attributes for a request that succeeded. */
  readonly metric: Attributes;
  /** The same for one that failed with `error.type` `type` (a JSON-RPC code, or `tool_error`). */
  failed(type: string): Attributes;
  /** Whether the operations seen so far hold it (a tool or prompt is kept once found among those served). */
  kept: boolean;
}

// Enough for every method, tool and prompt of a large server; past it, operations are described afresh on each
// request rather than kept.
const MAX_OPERATIONS = 2000;

/** One method's operations under one protocol version: the method alone, and by tool or prompt name. */
interface MethodOperations {
  plain?: Operation;
  byTarget?: Map<string, Operation>;
}

/**
 * The operations seen so far, each described once: the metric SDK hashes a request's attributes anyway, and
 * building the same objects again for every request of a hot path is what the cache saves. Looked up by the
 * request's own strings (version, method, name), so a hit builds nothing, not even a key. A method alone is
 * kept at once (only served methods reach the hooks); one with a tool or prompt name only through `keep`, once
 * the name was found among those served, so names a client makes up never fill the cache.
 */
export function createOperations() {
  const byVersion = new Map<string, Map<string, MethodOperations>>();
  let size = 0;
  const keep = (method: string, target: string | undefined, version: string, operation: Operation): void => {
    if (size >= MAX_OPERATIONS) return;
    size++;
    operation.kept = true;
    let methods = byVersion.get(version);
    if (!methods) byVersion.set(version, (methods = new Map()));
    let entry = methods.get(method);
    if (!entry) methods.set(method, (entry = {}));
    if (target === undefined) entry.plain = operation;
    else (entry.byTarget ??= new Map()).set(target, operation);
  };
  return {
    get(method: string, target: string | undefined, version: string): Operation {
      const known = byVersion.get(version)?.get(method);
      const hit = target === undefined ? known?.plain : known?.byTarget?.get(target);
      if (hit) return hit;
      const operation = describeOperation(method, target, version);
      if (target === undefined) keep(method, target, version, operation);
      return operation;
    },
    keep,
  };
}

function describeOperation(method: string, target: string | undefined, version: string): Operation {
  const span: Attributes = { [ATTR.method]: method, [ATTR.networkTransport]: "tcp", [ATTR.networkProtocol]: "http" };
  if (target !== undefined && method === "tools/call") {
    span[ATTR.toolName] = target;
    span[ATTR.operation] = "execute_tool";
  } else if (target !== undefined) span[ATTR.promptName] = target;
  const metric: Attributes = { ...span, [ATTR.protocolVersion]: version };
  const failures = new Map<string, Attributes>();
  return {
    name: target === undefined ? method : `${method} ${target}`,
    span,
    metric,
    kept: false,
    failed(type) {
      let attributes = failures.get(type);
      if (!attributes) {
        attributes = type === TOOL_ERROR ? { ...metric, [ATTR.errorType]: type } : { ...metric, [ATTR.errorType]: type, [ATTR.statusCode]: type };
        // Codes are few, but a run may throw any number; keep a handful.
        if (failures.size < 16) failures.set(type, attributes);
      }
      return attributes;
    },
  };
}
