// Protected resource metadata (RFC 9728), served at the path-aware well-known URL and at the root one:
// readable from any origin (browser clients fetch it) and cacheable.
import { defineHandler, type EventHandler } from "h3";

/** Fields of the metadata document the app may add (RFC 9728 section 2). */
export interface ResourceMetadataFields {
  resource_name?: string;
  resource_documentation?: string;
  resource_policy_uri?: string;
  resource_tos_uri?: string;
  [field: string]: unknown;
}

const CORS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, HEAD, OPTIONS",
  "access-control-allow-headers": "*",
  "access-control-max-age": "86400",
};

/** An h3 handler answering GET and HEAD with the document, OPTIONS with the CORS preflight, anything else 405. */
export function createMetadataHandler(document: Record<string, unknown>, maxAgeSeconds: number): EventHandler {
  const json = JSON.stringify(document);
  const headers = { ...CORS, "content-type": "application/json", "cache-control": `public, max-age=${maxAgeSeconds}` };
  return defineHandler((event) => {
    const method = event.req.method;
    if (method === "GET") return new Response(json, { status: 200, headers });
    if (method === "HEAD") return new Response(null, { status: 200, headers });
    if (method === "OPTIONS") return new Response(null, { status: 204, headers: CORS });
    return new Response(null, { status: 405, headers: { ...CORS, allow: "GET, HEAD, OPTIONS" } });
  });
}
