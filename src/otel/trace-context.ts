// A span's W3C trace context as a task carries it (in its origin, kept by every store), and back: so the
// span of a task's run links to the call that created it wherever the task is read.
import { TraceFlags, type SpanContext } from "@opentelemetry/api";
import type { JsonObject } from "../protocol/types.ts";

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** `{ traceparent, tracestate? }` of a span context, as W3C Trace Context writes them; undefined for an invalid one. */
export function traceparentOf(span: SpanContext): JsonObject | undefined {
  if (!/^[0-9a-f]{32}$/.test(span.traceId) || span.traceId === "0".repeat(32) || !/^[0-9a-f]{16}$/.test(span.spanId)) return undefined;
  const flags = (span.traceFlags & TraceFlags.SAMPLED).toString(16).padStart(2, "0");
  const carried: JsonObject = { traceparent: `00-${span.traceId}-${span.spanId}-${flags}` };
  const state = span.traceState?.serialize();
  if (state) carried.tracestate = state;
  return carried;
}

/** The span context an origin's `traceparent` names (remote); undefined when it has none or it is malformed. */
export function spanContextOf(origin: JsonObject | undefined): SpanContext | undefined {
  const value = origin?.traceparent;
  if (typeof value !== "string") return undefined;
  const match = TRACEPARENT.exec(value);
  if (!match || match[1] === "0".repeat(32) || match[2] === "0".repeat(16)) return undefined;
  return { traceId: match[1]!, spanId: match[2]!, traceFlags: Number.parseInt(match[3]!, 16), isRemote: true };
}
