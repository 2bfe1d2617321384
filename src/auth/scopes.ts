// Scopes: which ones a token grants once hierarchies are applied (a broader scope implies narrower ones,
// a MUST of the 2026-07-28 authorization spec), and how they are checked.

/** Which scopes each scope implies, e.g. `{ "files": ["files:read", "files:write"] }`. */
export type ScopeHierarchy = Readonly<Record<string, readonly string[]>>;

// RFC 6749 section 3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E ), so never a quote, backslash or space.
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

/** Throws a TypeError naming `where` unless every scope is a valid scope token. */
export function assertScopes(scopes: readonly string[], where: string): void {
  for (const scope of scopes) {
    if (typeof scope !== "string" || !SCOPE_TOKEN.test(scope)) {
      throw new TypeError(`${where}: ${JSON.stringify(scope)} is not a scope (RFC 6749: printable ASCII without space, quote or backslash)`);
    }
  }
}

/**
 * Expands granted scopes by a hierarchy, closed under implication (so `a` implying `b` implying `c`
 * grants `c`) and safe against cycles. The closure of each scope is computed once, at mount.
 */
export function createScopeExpander(hierarchy: ScopeHierarchy = {}): (granted: readonly string[]) => ReadonlySet<string> {
  const closure = new Map<string, readonly string[]>();
  for (const [scope, implied] of Object.entries(hierarchy)) {
    assertScopes([scope, ...implied], "mcpAuth: scopeHierarchy");
  }
  for (const scope of Object.keys(hierarchy)) {
    const seen = new Set<string>([scope]);
    const stack = [scope];
    while (stack.length) {
      for (const next of hierarchy[stack.pop()!] ?? []) {
        if (!seen.has(next)) {
          seen.add(next);
          stack.push(next);
        }
      }
    }
    closure.set(scope, [...seen]);
  }
  return (granted) => {
    const all = new Set<string>();
    for (const scope of granted) {
      const implied = closure.get(scope);
      if (implied) for (const s of implied) all.add(s);
      else all.add(scope);
    }
    return all;
  };
}

/** Whether every required scope is in the (expanded) granted set. */
export function holdsAll(granted: ReadonlySet<string>, required: readonly string[]): boolean {
  for (const scope of required) if (!granted.has(scope)) return false;
  return true;
}

/** The scopes of a `scope` claim (space-separated, RFC 9068 and RFC 7662) or an `scp` claim (a list, as some issuers send). */
export function scopesOfClaims(claims: Record<string, unknown>): string[] {
  const scope = claims.scope ?? claims.scp;
  if (typeof scope === "string") return scope.split(" ").filter((s) => s !== "");
  if (Array.isArray(scope)) return scope.filter((s): s is string => typeof s === "string" && s !== "");
  return [];
}
