// RFC 6570 URI templates, for matching a concrete URI back to its variables. Covers the
// expressions resource templates use: {var}, {+var}, {#var}, {/var}, {.var}, {;var}, {?a,b}, {&a}.

export interface UriTemplate {
  readonly template: string;
  readonly variables: string[];
  /** The variables of `uri`, or undefined when it does not match. */
  match(uri: string): Record<string, string> | undefined;
}

export function parseUriTemplate(template: string): UriTemplate {
  const variables: string[] = [];
  let pattern = "^";
  const groups: { name: string; query?: boolean }[] = [];
  let last = 0;
  for (const m of template.matchAll(/\{([+#./;?&]?)([^}]+)\}/g)) {
    pattern += escape(template.slice(last, m.index));
    last = m.index! + m[0].length;
    const op = m[1]!;
    const names = m[2]!.split(",").map((n) => n.replace(/[*]$|:\d+$/, "").trim());
    variables.push(...names);
    if (op === "?" || op === "&") {
      // Query parameters: matched loosely, read from the query string below.
      pattern += `(?:[${op === "?" ? "?" : "&"}][^#]*)?`;
      for (const name of names) groups.push({ name, query: true });
      continue;
    }
    const prefix = op === "#" ? "#" : op === "/" ? "/" : op === "." ? "\\." : op === ";" ? ";" : "";
    const body = op === "+" || op === "#" ? "[^?#]+?" : "[^/?#,]+?";
    names.forEach((name, i) => {
      pattern += (i === 0 ? escape(prefix) : op === "/" ? "/" : ",") + (op === ";" ? `${escape(name)}=?` : "") + `(${body})`;
      groups.push({ name });
    });
  }
  pattern += escape(template.slice(last)) + "$";
  const regex = new RegExp(pattern.replace(/\\\\\./g, "\\."));
  return {
    template,
    variables,
    match(uri) {
      const m = regex.exec(uri);
      if (!m) return undefined;
      const out: Record<string, string> = {};
      let i = 1;
      const query = uri.includes("?") ? new URLSearchParams(uri.slice(uri.indexOf("?") + 1).split("#")[0]) : undefined;
      for (const group of groups) {
        if (group.query) {
          const v = query?.get(group.name);
          if (v !== null && v !== undefined) out[group.name] = v;
          continue;
        }
        const raw = m[i++];
        if (raw === undefined) return undefined;
        try {
          out[group.name] = decodeURIComponent(raw);
        } catch {
          return undefined;
        }
      }
      return out;
    },
  };
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
