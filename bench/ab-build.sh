#!/usr/bin/env bash
# Bundles one build of h3-mcp for bench/ab.ts: the tree of git ref $1 (or the working tree for "."),
# with its own bench app (bench/lib/mcp-app.ts), into the ES module $2 (h3, xstate and zod bundled in, so two builds
# loaded side by side share nothing).
#   bash bench/ab-build.sh main /tmp/main.mjs && bash bench/ab-build.sh . /tmp/here.mjs
set -euo pipefail
ref=$1; out=$(realpath -m "$2")
here=$(cd "$(dirname "$0")/.." && pwd)
tree=$here
if [ "$ref" != "." ]; then
  tree=$(mktemp -d)
  trap 'rm -rf "$tree"' EXIT
  git -C "$here" archive "$ref" | tar -x -C "$tree"
  # The ref's own bench app and requests; this checkout's entry and reference apps, if the ref lacks them.
  for f in ab-entry.ts bare-app.ts bare-actor-app.ts; do [ -e "$tree/bench/lib/$f" ] || cp "$here/bench/lib/$f" "$tree/bench/lib/$f"; done
  ln -s "$here/node_modules" "$tree/node_modules"
fi
"$here/node_modules/.bin/esbuild" "$tree/bench/lib/ab-entry.ts" --bundle --platform=node --format=esm --outfile="$out" \
  --tsconfig="$tree/tsconfig.json" --log-level=warning \
  --banner:js="import { createRequire } from 'module'; const require = createRequire(import.meta.url);"
echo "$out"
