// Preloaded into a child process (NODE_OPTIONS=--import=<this file>): prints "[module] <url>" on stderr for
// every module of OpenTelemetry (and of h3-mcp's otel entry) that the process resolves, so a test can tell
// whether a process loaded any of it.
import { register } from "node:module";

register(
  "data:text/javascript," +
    encodeURIComponent(`
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (/@opentelemetry|\\/src\\/otel\\//.test(resolved.url)) process.stderr.write("[module] " + resolved.url + "\\n");
  return resolved;
}`),
);
