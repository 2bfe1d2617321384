// Running the store's migration (schema.ts) on a pool: the version found is read first (nothing more is
// done when it is this one), then the missing steps run as one script, which Postgres runs as one
// transaction, under an advisory lock held to its end; a schema made by a newer server is refused, named.
import { ErrorCode, McpJsonRpcError } from "../../protocol/errors.ts";
import type { Connection } from "./connection.ts";
import { migrationSteps, quoteIdentifier, SCHEMA_VERSION } from "./schema.ts";

/** The schema version the tables of `schema` are at; 0 when there are none. */
async function versionOf(conn: Connection, schema: string): Promise<number> {
  const meta = `${quoteIdentifier(schema)}.mcp_task_meta`;
  const [found] = await conn.query<{ present: string | null }>("SELECT to_regclass($1)::text AS present", [meta]);
  if (!found?.present) return 0;
  const [row] = await conn.query<{ value: number }>(`SELECT value FROM ${meta} WHERE key = 'schema'`);
  return row?.value ?? 0;
}

function newer(where: string, schema: string, found: number): McpJsonRpcError {
  return new McpJsonRpcError(
    ErrorCode.InternalError,
    `${where}: the Postgres schema "${schema}" holds tasks of store schema ${found}, newer than this server's ${SCHEMA_VERSION}; run the newer server, or give this one another schema`,
  );
}

/** Brings the tables of `schema` to this version; does nothing when they are there already. */
export async function migrate(conn: Connection, schema: string, where: string): Promise<void> {
  const found = await versionOf(conn, schema);
  if (found === SCHEMA_VERSION) return;
  if (found > SCHEMA_VERSION) throw newer(where, schema, found);
  const s = quoteIdentifier(schema);
  const literal = `'${schema.replace(/'/g, "''")}'`;
  await conn.query(
    [
      // One migration at a time per schema: instances starting together wait here, then find it done.
      `SELECT pg_advisory_xact_lock(hashtext('h3-mcp task store ' || ${literal}));`,
      `CREATE SCHEMA IF NOT EXISTS ${s};`,
      `CREATE TABLE IF NOT EXISTS ${s}.mcp_task_meta (key text PRIMARY KEY, value integer NOT NULL);`,
      `DO $check$ BEGIN IF (SELECT value FROM ${s}.mcp_task_meta WHERE key = 'schema') > ${SCHEMA_VERSION} THEN
         RAISE EXCEPTION 'the schema % is newer than this server''s store schema ${SCHEMA_VERSION}', ${literal}; END IF; END $check$;`,
      ...migrationSteps(schema).slice(found),
      `INSERT INTO ${s}.mcp_task_meta (key, value) VALUES ('schema', ${SCHEMA_VERSION}) ON CONFLICT (key) DO UPDATE SET value = greatest(${s}.mcp_task_meta.value, EXCLUDED.value);`,
    ].join("\n"),
  );
}

/** Refuses a schema not at this version (for a store told not to migrate by itself). */
export async function checkMigrated(conn: Connection, schema: string, where: string): Promise<void> {
  const found = await versionOf(conn, schema);
  if (found === SCHEMA_VERSION) return;
  if (found > SCHEMA_VERSION) throw newer(where, schema, found);
  throw new McpJsonRpcError(
    ErrorCode.InternalError,
    `${where}: the Postgres schema "${schema}" is at store schema ${found}, not ${SCHEMA_VERSION}: run store.migrate() (or the SQL of postgresTaskStoreSql()) first, or leave \`migrate\` on`,
  );
}
