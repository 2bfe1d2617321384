// What a built package imports: the bare specifiers of every JavaScript file, and which of them each
// `exports` entry reaches through its chunks. Used by check-package on the unpacked tarball.
import { readFileSync } from "node:fs";
import path from "node:path";

const IMPORT = /(?:^|[\s;])(?:import|export)\s*(?:[^"'`;]*?\s*from\s*)?["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g;

/** The specifiers a module imports (static, re-exports, side-effect and literal dynamic imports). */
export function specifiersOf(file) {
  // Lines of doc comments (a JSDoc example may show an import) are not imports.
  const text = readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => !/^\s*(\*|\/\*|\/\/)/.test(line))
    .join("\n");
  return [...text.matchAll(IMPORT)].map((m) => m[1] ?? m[2]);
}

/**
 * `lodash/fp` → `lodash`, `@scope/pkg/x` → `@scope/pkg`; undefined for relative paths, the package's own
 * `#imports`, and a runtime's built-in modules (`node:fs`, `cloudflare:workers`).
 */
export function packageOf(specifier) {
  if (specifier.startsWith(".") || specifier.startsWith("/") || specifier.startsWith("#") || /^[a-z]+:/.test(specifier)) return undefined;
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
}

/** The packages a module reaches, following its relative imports through the package's own files. */
export function packagesReachedFrom(entryFile) {
  const seen = new Set();
  const packages = new Set();
  const visit = (file) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const spec of specifiersOf(file)) {
      const pkg = packageOf(spec);
      if (pkg) packages.add(pkg);
      else if (spec.startsWith(".")) visit(path.resolve(path.dirname(file), spec));
    }
  };
  visit(entryFile);
  return packages;
}

/** The JavaScript and type files each `exports` entry (or, given `pkg.imports`, each `#import`) points at, by subpath. */
export function exportTargets(pkg, field = pkg.exports) {
  const out = new Map();
  for (const [subpath, target] of Object.entries(field ?? {})) {
    const files = [];
    const walk = (t) => (typeof t === "string" ? files.push(t) : Object.values(t).forEach(walk));
    walk(target);
    out.set(subpath, files);
  }
  return out;
}
