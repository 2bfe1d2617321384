// An OTLP/HTTP receiver for tests: it accepts what a real exporter sends to /v1/traces and /v1/metrics, as
// JSON (http/json) or protobuf (http/protobuf), and decodes both into one plain shape. The protobuf side
// reads the wire format by the field numbers of opentelemetry-proto's trace and metrics messages.
import http from "node:http";
import type { AddressInfo } from "node:net";

export type AttributeValue = string | number | boolean | AttributeValue[] | null;

export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** OTLP's enum: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, AttributeValue>;
  events: { name: string; attributes: Record<string, AttributeValue> }[];
  links: { traceId: string; spanId: string }[];
  /** 0 unset, 1 ok, 2 error. */
  status: { code: number; message: string };
}

export interface ReceivedPoint {
  attributes: Record<string, AttributeValue>;
  /** A sum's or gauge's value. */
  value?: number;
  /** A histogram's. */
  count?: number;
  bounds?: number[];
}

export interface ReceivedMetric {
  name: string;
  unit: string;
  kind: "sum" | "gauge" | "histogram";
  points: ReceivedPoint[];
}

export interface OtlpReceiver {
  /** http://127.0.0.1:<port>, for OTEL_EXPORTER_OTLP_ENDPOINT. */
  readonly url: string;
  readonly spans: ReceivedSpan[];
  /** Every export's metrics, in arrival order (cumulative points: the last export holds the totals). */
  readonly metrics: ReceivedMetric[];
  /** The content types the exports came with. */
  readonly contentTypes: Set<string>;
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const metrics: ReceivedMetric[] = [];
  const contentTypes = new Set<string>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const type = (req.headers["content-type"] ?? "").split(";")[0]!.trim();
      contentTypes.add(type);
      const json = type === "application/json";
      try {
        if (req.url === "/v1/traces") spans.push(...(json ? tracesFromJson(JSON.parse(body.toString("utf8"))) : tracesFromProto(body)));
        else if (req.url === "/v1/metrics") metrics.push(...(json ? metricsFromJson(JSON.parse(body.toString("utf8"))) : metricsFromProto(body)));
      } catch (error) {
        res.writeHead(400).end(String(error));
        return;
      }
      // An empty ExportServiceResponse, in the request's own encoding.
      res.writeHead(200, { "content-type": json ? "application/json" : "application/x-protobuf" }).end(json ? "{}" : Buffer.alloc(0));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    metrics,
    contentTypes,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * The attributes a `tools/call`'s SERVER span carries in 2026-07-28 on every runtime, reached at `url`
 * (Node adds `network.protocol.version` and `client.address`).
 */
export function toolCallAttributes(tool: string, requestId: string, url: URL): Record<string, AttributeValue> {
  return {
    "mcp.method.name": "tools/call",
    "gen_ai.tool.name": tool,
    "gen_ai.operation.name": "execute_tool",
    "jsonrpc.request.id": requestId,
    "mcp.protocol.version": "2026-07-28",
    "network.transport": "tcp",
    "network.protocol.name": "http",
    "server.address": url.hostname,
    "server.port": Number(url.port),
  };
}

/** The latest point of each metric with these attributes (cumulative exports: the last one is the total). */
export function latestPoints(metrics: readonly ReceivedMetric[], name: string): ReceivedPoint[] {
  const latest = new Map<string, ReceivedPoint>();
  for (const metric of metrics) {
    if (metric.name !== name) continue;
    for (const point of metric.points) latest.set(JSON.stringify(Object.entries(point.attributes).sort()), point);
  }
  return [...latest.values()];
}

// --- JSON (OTLP/JSON: camelCase, ids in hex, 64-bit integers as strings) ---

type Json = any;

function tracesFromJson(body: Json): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rs of body.resourceSpans ?? []) {
    const service = String(attributesFromJson(rs.resource?.attributes)["service.name"] ?? "");
    for (const ss of rs.scopeSpans ?? []) {
      for (const s of ss.spans ?? []) {
        out.push({
          service,
          traceId: s.traceId,
          spanId: s.spanId,
          parentSpanId: s.parentSpanId ?? "",
          name: s.name,
          kind: s.kind ?? 0,
          attributes: attributesFromJson(s.attributes),
          events: (s.events ?? []).map((e: Json) => ({ name: e.name, attributes: attributesFromJson(e.attributes) })),
          links: (s.links ?? []).map((l: Json) => ({ traceId: l.traceId, spanId: l.spanId })),
          status: { code: s.status?.code ?? 0, message: s.status?.message ?? "" },
        });
      }
    }
  }
  return out;
}

function metricsFromJson(body: Json): ReceivedMetric[] {
  const out: ReceivedMetric[] = [];
  for (const rm of body.resourceMetrics ?? []) {
    for (const sm of rm.scopeMetrics ?? []) {
      for (const m of sm.metrics ?? []) {
        const kind = m.histogram ? "histogram" : m.sum ? "sum" : "gauge";
        const points = (m.histogram ?? m.sum ?? m.gauge)?.dataPoints ?? [];
        out.push({
          name: m.name,
          unit: m.unit ?? "",
          kind,
          points: points.map((p: Json) =>
            kind === "histogram"
              ? { attributes: attributesFromJson(p.attributes), count: Number(p.count), bounds: (p.explicitBounds ?? []).map(Number) }
              : { attributes: attributesFromJson(p.attributes), value: Number(p.asInt ?? p.asDouble ?? 0) },
          ),
        });
      }
    }
  }
  return out;
}

function attributesFromJson(list: Json[] | undefined): Record<string, AttributeValue> {
  return Object.fromEntries((list ?? []).map((kv) => [kv.key, valueFromJson(kv.value)]));
}

function valueFromJson(v: Json): AttributeValue {
  if (!v) return null;
  if ("stringValue" in v) return v.stringValue;
  if ("boolValue" in v) return v.boolValue;
  if ("intValue" in v) return Number(v.intValue);
  if ("doubleValue" in v) return Number(v.doubleValue);
  if ("arrayValue" in v) return (v.arrayValue.values ?? []).map(valueFromJson);
  return null;
}

// --- Protobuf ---

/** A message's fields by number, each a list of raw values: a varint (bigint), bytes, or fixed 4/8 bytes. */
type Fields = Map<number, (bigint | Uint8Array)[]>;

function decode(buf: Uint8Array): Fields {
  const fields: Fields = new Map();
  let i = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const byte = buf[i++]!;
      result |= BigInt(byte & 0x7f) << shift;
      if (!(byte & 0x80)) return result;
      shift += 7n;
    }
  };
  while (i < buf.length) {
    const key = Number(varint());
    const field = key >>> 3;
    const wire = key & 7;
    let value: bigint | Uint8Array;
    if (wire === 0) value = varint();
    else if (wire === 1) value = buf.subarray(i, (i += 8));
    else if (wire === 2) {
      const len = Number(varint());
      value = buf.subarray(i, (i += len));
    } else if (wire === 5) value = buf.subarray(i, (i += 4));
    else throw new Error(`unsupported wire type ${wire}`);
    const list = fields.get(field) ?? [];
    list.push(value);
    fields.set(field, list);
  }
  return fields;
}

const bytesOf = (f: Fields, n: number) => (f.get(n) ?? []) as Uint8Array[];
const one = (f: Fields, n: number) => f.get(n)?.[0];
const str = (f: Fields, n: number) => {
  const v = one(f, n);
  return v instanceof Uint8Array ? Buffer.from(v).toString("utf8") : "";
};
const hex = (f: Fields, n: number) => {
  const v = one(f, n);
  return v instanceof Uint8Array ? Buffer.from(v).toString("hex") : "";
};
const int = (f: Fields, n: number) => {
  const v = one(f, n);
  return typeof v === "bigint" ? Number(v) : 0;
};
const fixed64 = (v: Uint8Array | bigint | undefined) => (v instanceof Uint8Array ? Number(Buffer.from(v).readBigUInt64LE()) : 0);
const double = (v: Uint8Array | bigint | undefined) => (v instanceof Uint8Array ? Buffer.from(v).readDoubleLE() : 0);

function tracesFromProto(body: Uint8Array): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rsBytes of bytesOf(decode(body), 1)) {
    const rs = decode(rsBytes);
    const resource = one(rs, 1);
    const service = resource instanceof Uint8Array ? String(attributesFromProto(decode(resource), 1)["service.name"] ?? "") : "";
    for (const ssBytes of bytesOf(rs, 2)) {
      for (const spanBytes of bytesOf(decode(ssBytes), 2)) {
        const s = decode(spanBytes);
        const status = one(s, 15);
        const st = status instanceof Uint8Array ? decode(status) : new Map();
        out.push({
          service,
          traceId: hex(s, 1),
          spanId: hex(s, 2),
          parentSpanId: hex(s, 4),
          name: str(s, 5),
          kind: int(s, 6),
          attributes: attributesFromProto(s, 9),
          events: bytesOf(s, 11).map((e) => {
            const ev = decode(e);
            return { name: str(ev, 2), attributes: attributesFromProto(ev, 3) };
          }),
          links: bytesOf(s, 13).map((l) => {
            const link = decode(l);
            return { traceId: hex(link, 1), spanId: hex(link, 2) };
          }),
          status: { code: int(st, 3), message: str(st, 2) },
        });
      }
    }
  }
  return out;
}

function metricsFromProto(body: Uint8Array): ReceivedMetric[] {
  const out: ReceivedMetric[] = [];
  for (const rmBytes of bytesOf(decode(body), 1)) {
    for (const smBytes of bytesOf(decode(rmBytes), 2)) {
      for (const mBytes of bytesOf(decode(smBytes), 2)) {
        const m = decode(mBytes);
        const [kind, field] = m.has(9) ? (["histogram", 9] as const) : m.has(7) ? (["sum", 7] as const) : (["gauge", 5] as const);
        const data = one(m, field);
        const points = data instanceof Uint8Array ? bytesOf(decode(data), 1).map(decode) : [];
        out.push({
          name: str(m, 1),
          unit: str(m, 3),
          kind,
          points: points.map((p) =>
            kind === "histogram"
              ? { attributes: attributesFromProto(p, 9), count: fixed64(one(p, 4)), bounds: packedDoubles(p, 7) }
              : { attributes: attributesFromProto(p, 7), value: p.has(4) ? double(one(p, 4)) : fixed64(one(p, 6)) },
          ),
        });
      }
    }
  }
  return out;
}

function packedDoubles(f: Fields, n: number): number[] {
  const out: number[] = [];
  for (const chunk of bytesOf(f, n)) {
    // Packed (one length-delimited run) or, if a writer sent them one by one, 8 bytes each: the same here.
    for (let i = 0; i + 8 <= chunk.length; i += 8) out.push(Buffer.from(chunk.subarray(i, i + 8)).readDoubleLE());
  }
  return out;
}

function attributesFromProto(f: Fields, n: number): Record<string, AttributeValue> {
  return Object.fromEntries(
    bytesOf(f, n).map((kvBytes) => {
      const kv = decode(kvBytes);
      const value = one(kv, 2);
      return [str(kv, 1), value instanceof Uint8Array ? valueFromProto(decode(value)) : null];
    }),
  );
}

function valueFromProto(v: Fields): AttributeValue {
  if (v.has(1)) return str(v, 1);
  if (v.has(2)) return int(v, 2) === 1;
  if (v.has(3)) return int(v, 3);
  if (v.has(4)) return double(one(v, 4));
  if (v.has(5)) {
    const arr = one(v, 5);
    return arr instanceof Uint8Array ? bytesOf(decode(arr), 1).map((x) => valueFromProto(decode(x))) : [];
  }
  return null;
}
