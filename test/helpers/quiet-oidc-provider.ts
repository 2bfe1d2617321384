// oidc-provider, without the three warnings it prints for how these tests use it on purpose: it wants Node 22
// (this repository develops and tests on Node 20.19 too, the lowest its engines admit), and the in-memory
// adapter and development interactions are what a test authorization server is. Only those exact lines are
// held back, only while the module loads and a provider is made; any other warning still reaches the output.
import type { Configuration } from "oidc-provider";

const KNOWN_DEV_WARNINGS = [
  /^oidc-provider WARNING: Unsupported runtime\. Use Node\.js v22\.x LTS, or a later LTS release\.$/,
  /^oidc-provider WARNING: a quick start development-only in-memory adapter is used\b/,
  /^oidc-provider WARNING: a quick start development-only feature devInteractions is enabled\b/,
];

/** Makes console.warn pass on everything but the known development warnings, until the returned function is called. */
function holdDevWarnings(): () => void {
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    // The module colours its line on a TTY: compare the text without the escape codes.
    const text = typeof args[0] === "string" ? args[0].replace(/\x1b\[[0-9;]*m/g, "") : undefined;
    if (args.length === 1 && text !== undefined && KNOWN_DEV_WARNINGS.some((known) => known.test(text))) return;
    warn.apply(console, args);
  };
  return () => {
    console.warn = warn;
  };
}

const release = holdDevWarnings();
const { default: Provider } = await import("oidc-provider").finally(release);

export type Provider = InstanceType<typeof Provider>;

/** `new Provider(issuer, configuration)`, without its development warnings. */
export function createProvider(issuer: string, configuration: Configuration): Provider {
  const release = holdDevWarnings();
  try {
    return new Provider(issuer, configuration);
  } finally {
    release();
  }
}
