// What bench/ab.ts needs of one build of h3-mcp, bundled with its own copy of h3 and xstate by
// bench/ab-build.sh: the bench app, row (a)'s and row (f)'s apps, and the requests.
export { createBareActorApp } from "./bare-actor-app.ts";
export { createBareApp } from "./bare-app.ts";
export { createBenchApp } from "./mcp-app.ts";
export { requests, toWebRequest } from "./wire.ts";
