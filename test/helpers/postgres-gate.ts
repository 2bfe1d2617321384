// Whether the Postgres suites (test/postgres/) run: only with Postgres's server binaries (initdb, postgres)
// on PATH or in Debian's /usr/lib/postgresql/<major>/bin. Without them, `npm test` leaves the suites out and
// says so loudly after its summary; under CI (or H3_MCP_REQUIRE_POSTGRES=1) they stay in and fail, because
// there a missing server is a broken machine, not a developer's laptop.
// Imported by vitest.config.ts and by the server helper, so nothing here imports vitest.
import { accessSync, constants, readdirSync } from "node:fs";
import path from "node:path";

/** The suites that start their own Postgres cluster. */
export const POSTGRES_TESTS = ["test/postgres/**/*.test.ts"];

const DEBIAN_ROOT = "/usr/lib/postgresql";

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The folder holding `initdb` and `postgres`, if any: PATH first, then Debian's newest major version. */
export function findPostgresBin(): string | undefined {
  const dirs = (process.env.PATH ?? "").split(path.delimiter).filter(Boolean);
  let majors: string[] = [];
  try {
    majors = readdirSync(DEBIAN_ROOT).filter((d) => /^\d+$/.test(d)).sort((a, b) => Number(b) - Number(a));
  } catch {
    // not Debian's layout
  }
  for (const dir of [...dirs, ...majors.map((m) => path.join(DEBIAN_ROOT, m, "bin"))]) {
    if (executable(path.join(dir, "initdb")) && executable(path.join(dir, "postgres"))) return dir;
  }
  return undefined;
}

/** True when missing Postgres binaries must fail the run rather than be reported. */
export function postgresRequired(env: NodeJS.ProcessEnv = process.env): boolean {
  const flag = (v: string | undefined) => v !== undefined && v !== "" && v !== "0" && v.toLowerCase() !== "false";
  return flag(env.CI) || flag(env.H3_MCP_REQUIRE_POSTGRES);
}

export const HOW_TO_RUN = "install them (Debian/Ubuntu: apt-get install postgresql; macOS: brew install postgresql@15), then run npm test again";

/** What `startPostgres()` throws when there is no server to start. */
export function missingPostgresMessage(): string {
  return `initdb and postgres are not on PATH, and the Postgres suites need a real server: ${HOW_TO_RUN}.` +
    (postgresRequired() ? " (CI / H3_MCP_REQUIRE_POSTGRES is set, so this fails the run.)" : "");
}

/** The vitest pieces for the gate: files to leave out, and a reporter that prints the verdict last. */
export function postgresGate() {
  const bin = findPostgresBin();
  const required = postgresRequired();
  const run = bin !== undefined || required;
  const reporter = {
    onTestRunEnd() {
      if (bin) return;
      const bar = "!".repeat(100);
      const lines = required
        ? [
            "POSTGRES SUITES FAILED: initdb and postgres are not on PATH, and CI / H3_MCP_REQUIRE_POSTGRES requires them.",
            `The files in ${POSTGRES_TESTS.join(" and ")} ran and failed on purpose. To fix: ${HOW_TO_RUN}.`,
          ]
        : [
            "POSTGRES SUITES DID NOT RUN: initdb and postgres are not on PATH, so the tests in test/postgres/ were left out.",
            "Everything else ran. The Postgres task store (h3-mcp/tasks/postgres) is NOT tested by this run.",
            `To run them: ${HOW_TO_RUN}.`,
          ];
      process.stderr.write(`\n${bar}\n${lines.map((l) => `!! ${l}`).join("\n")}\n${bar}\n\n`);
    },
  };
  return { exclude: run ? [] : POSTGRES_TESTS, reporter };
}
