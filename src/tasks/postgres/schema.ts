// The Postgres store's tables and functions, in a schema of their own (default "h3_mcp"), created by a
// versioned migration: `migrate()` runs it in one transaction under an advisory lock (so instances starting
// together wait for one another), records its version in `mcp_task_meta`, and does nothing when the version
// is already there; a schema made by a later version (a newer server) is refused rather than guessed at.
//   mcp_tasks          one row per task: owner hash, version, expiry, live snapshot (with the chart version
//                      that wrote it) or final JSON, the worker running it; for a run found by name its name,
//                      version, sealed record, the attempt holding it or that held it last, whether it is
//                      released, since when it waits
//   mcp_task_counts    tasks retained, per owner hash and in all ("*"), kept by triggers, for the caps
//   mcp_task_leases    one row per instance: until when its claim on the tasks it runs holds (database clock)
//   mcp_task_changes   every change and hand-off, kept a minute, for the catch-up read after LISTEN drops
// Each step that must be atomic is one function, so one round trip: creation with the caps, the
// compare-and-set, a claim, a hand-off, a checkpoint, the lease renewal with the expiry sweep.
// docs/postgres.md prints this SQL (`postgresTaskStoreSql()`).

/** The migration's version, one more with every change of the SQL below. */
export const SCHEMA_VERSION = 2;

/** The count row of every task, beside one row per owner hash (hashes are base64url: never "*"). */
export const ALL_OWNERS = "*";

/** How long change rows are kept: an instance away for longer catches up by reading its tasks again. */
export const CHANGES_KEEP_MS = 60_000;

/** A schema name as SQL writes it. */
export function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** The LISTEN/NOTIFY channels of one schema: its changes and hand-offs, and the hub's announcements. */
export function channelsOf(schema: string) {
  return { changes: `${schema}_changes`, hub: `${schema}_hub` };
}

/** The steps of the migration, step n taking a schema at version n-1 to version n. */
export function migrationSteps(schema: string): string[] {
  const s = quoteIdentifier(schema);
  // "The attempt p_attempt still holds the task of row `t` at `clock` (the database's clock)": true for a write without a fence and for a task without a run.
  const fence = (t: string) => `(p_attempt IS NULL OR ${t}.run_name IS NULL OR (${t}.attempt = p_attempt AND NOT ${t}.released AND ${t}.worker IS NOT NULL
      AND EXISTS (SELECT 1 FROM ${s}.mcp_task_leases l WHERE l.worker = ${t}.worker AND l.until > clock)))`;
  const fenceHolds = fence("t");
  const liveRun = (t: string) => `(${t}.json IS NULL AND ${t}.run_name IS NOT NULL AND (${t}.expires_at IS NULL OR ${t}.expires_at > p_now))`;
  return [
    `
CREATE TABLE IF NOT EXISTS ${s}.mcp_tasks (
  id text PRIMARY KEY, owner text NOT NULL, version integer NOT NULL, expires_at double precision,
  chart text, snapshot text, json text, status text, origin text, worker text,
  run_name text, run_version integer, record text, attempt integer, released boolean, since double precision
);
CREATE INDEX IF NOT EXISTS mcp_tasks_expiry ON ${s}.mcp_tasks (expires_at) WHERE expires_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS mcp_tasks_runs ON ${s}.mcp_tasks (run_name) WHERE run_name IS NOT NULL AND json IS NULL;
CREATE INDEX IF NOT EXISTS mcp_tasks_worker ON ${s}.mcp_tasks (worker) WHERE worker IS NOT NULL;
CREATE TABLE IF NOT EXISTS ${s}.mcp_task_counts (owner text PRIMARY KEY, n integer NOT NULL);
INSERT INTO ${s}.mcp_task_counts (owner, n) VALUES ('${ALL_OWNERS}', 0) ON CONFLICT DO NOTHING;
CREATE TABLE IF NOT EXISTS ${s}.mcp_task_leases (worker text PRIMARY KEY, until double precision NOT NULL);
CREATE TABLE IF NOT EXISTS ${s}.mcp_task_changes (
  seq bigserial PRIMARY KEY, id text NOT NULL, version integer NOT NULL, at double precision NOT NULL, body text NOT NULL
);
CREATE INDEX IF NOT EXISTS mcp_task_changes_at ON ${s}.mcp_task_changes (at);

-- Leases are judged by the database's clock, the one clock every instance shares.
CREATE OR REPLACE FUNCTION ${s}.mcp_now_ms() RETURNS double precision LANGUAGE sql VOLATILE AS
$$ SELECT floor(extract(epoch FROM clock_timestamp()) * 1000) $$;

-- The counts follow every insert and delete (every delete takes the "*" row's lock first: see mcp_task_sweep).
CREATE OR REPLACE FUNCTION ${s}.mcp_task_counted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO ${s}.mcp_task_counts (owner, n) VALUES (NEW.owner, 0) ON CONFLICT DO NOTHING;
    UPDATE ${s}.mcp_task_counts SET n = n + 1 WHERE owner IN (NEW.owner, '${ALL_OWNERS}');
  ELSE
    UPDATE ${s}.mcp_task_counts SET n = n - 1 WHERE owner IN (OLD.owner, '${ALL_OWNERS}');
    DELETE FROM ${s}.mcp_task_counts WHERE owner = OLD.owner AND owner <> '${ALL_OWNERS}' AND n <= 0;
  END IF;
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS mcp_tasks_counted ON ${s}.mcp_tasks;
CREATE TRIGGER mcp_tasks_counted AFTER INSERT OR DELETE ON ${s}.mcp_tasks FOR EACH ROW EXECUTE FUNCTION ${s}.mcp_task_counted();

-- The expiry sweep: tasks past their expiry (by the runtime's clock, p_now) go, under the "*" count row's lock.
CREATE OR REPLACE FUNCTION ${s}.mcp_task_sweep(p_now double precision) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM ${s}.mcp_task_counts WHERE owner = '${ALL_OWNERS}' FOR UPDATE;
  DELETE FROM ${s}.mcp_tasks WHERE expires_at <= p_now;
END $$;

-- Takes or extends a worker's lease. Taken afresh (it had lapsed, or was dropped), it first gives up every
-- hold of that worker, waiting since its old deadline: a holder lost once never holds again.
CREATE OR REPLACE FUNCTION ${s}.mcp_task_lease(p_worker text, p_lease_ms double precision, clock double precision) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  UPDATE ${s}.mcp_task_leases SET until = clock + p_lease_ms WHERE worker = p_worker AND until > clock;
  IF FOUND THEN RETURN; END IF;
  UPDATE ${s}.mcp_tasks SET worker = NULL, since = COALESCE((SELECT until FROM ${s}.mcp_task_leases WHERE worker = p_worker), clock)
    WHERE worker = p_worker AND run_name IS NOT NULL AND NOT released AND json IS NULL;
  INSERT INTO ${s}.mcp_task_leases (worker, until) VALUES (p_worker, clock + p_lease_ms)
    ON CONFLICT (worker) DO UPDATE SET until = EXCLUDED.until;
END $$;

-- A change row, told to every listening instance at commit: the message itself when it fits a
-- notification, else its row's number (the listener reads the row).
CREATE OR REPLACE FUNCTION ${s}.mcp_task_changed(p_id text, p_version integer, p_body text, p_channel text, clock double precision) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  v_seq bigint;
  kind text := CASE WHEN p_version < 0 THEN 'r' ELSE 'c' END;
BEGIN
  INSERT INTO ${s}.mcp_task_changes (id, version, at, body) VALUES (p_id, p_version, clock, p_body) RETURNING mcp_task_changes.seq INTO v_seq;
  IF octet_length(p_body) <= 7000 THEN
    PERFORM pg_notify(p_channel, kind || v_seq || ' ' || p_body);
  ELSE
    PERFORM pg_notify(p_channel, upper(kind) || v_seq || ' ' || p_id || ' ' || p_version);
  END IF;
END $$;

-- Creation with the caps, in one transaction: 1 created, 0 full, 2 owner-full, -1 the id is taken.
CREATE OR REPLACE FUNCTION ${s}.mcp_task_create(
  p_id text, p_owner text, p_expires double precision, p_chart text, p_snapshot text, p_origin text,
  p_worker text, p_lease_ms double precision, p_now double precision, p_max integer, p_max_per_owner integer,
  p_run_name text, p_run_version integer, p_record text, p_released boolean, p_channel text, p_released_message text
) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  clock double precision := ${s}.mcp_now_ms();
BEGIN
  -- Expired tasks go before the caps are counted, so they never count; the sweep holds the count lock from here on.
  PERFORM ${s}.mcp_task_sweep(p_now);
  IF EXISTS (SELECT 1 FROM ${s}.mcp_tasks WHERE id = p_id) THEN RETURN -1; END IF;
  IF (SELECT n FROM ${s}.mcp_task_counts WHERE owner = '${ALL_OWNERS}') >= p_max THEN RETURN 0; END IF;
  IF p_max_per_owner IS NOT NULL AND COALESCE((SELECT n FROM ${s}.mcp_task_counts WHERE owner = p_owner), 0) >= p_max_per_owner THEN RETURN 2; END IF;
  PERFORM ${s}.mcp_task_lease(p_worker, p_lease_ms, clock);
  INSERT INTO ${s}.mcp_tasks (id, owner, version, expires_at, chart, snapshot, origin, worker, run_name, run_version, record, attempt, released, since)
  VALUES (p_id, p_owner, 1, p_expires, p_chart, p_snapshot, p_origin, CASE WHEN p_released THEN NULL ELSE p_worker END,
    p_run_name, p_run_version, p_record,
    CASE WHEN p_run_name IS NULL THEN NULL WHEN p_released THEN 0 ELSE 1 END,
    CASE WHEN p_run_name IS NULL THEN NULL ELSE p_released END, clock);
  IF p_released THEN PERFORM ${s}.mcp_task_changed(p_id, -1, p_released_message, p_channel, clock); END IF;
  RETURN 1;
END $$;

-- The compare-and-set, the version and the fence in one UPDATE's condition: 1 written, 0 conflict,
-- -1 gone, -2 fenced. A final write (p_json) keeps the answer and drops the snapshot and the run record.
CREATE OR REPLACE FUNCTION ${s}.mcp_task_write(
  p_id text, p_version integer, p_chart text, p_snapshot text, p_json text, p_status text, p_attempt integer, p_body text, p_channel text
) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  clock double precision := ${s}.mcp_now_ms();
  r ${s}.mcp_tasks%ROWTYPE;
BEGIN
  IF p_json IS NULL THEN
    UPDATE ${s}.mcp_tasks t SET version = t.version + 1, chart = p_chart, snapshot = p_snapshot
      WHERE t.id = p_id AND t.version = p_version - 1 AND t.json IS NULL AND ${fenceHolds};
  ELSE
    UPDATE ${s}.mcp_tasks t SET version = t.version + 1, snapshot = NULL, json = p_json, status = p_status, record = NULL, released = false
      WHERE t.id = p_id AND t.version = p_version - 1 AND t.json IS NULL AND ${fenceHolds};
  END IF;
  IF NOT FOUND THEN
    SELECT * INTO r FROM ${s}.mcp_tasks WHERE id = p_id;
    IF NOT FOUND THEN RETURN -1; END IF;
    -- The fence first: a stale attempt must stop, whatever the version says.
    IF r.json IS NULL AND NOT ${fence("r")} THEN RETURN -2; END IF;
    RETURN 0;
  END IF;
  PERFORM ${s}.mcp_task_changed(p_id, p_version, p_body, p_channel, clock);
  RETURN 1;
END $$;

-- A claim of a task's next attempt: 'claimed <attempt>', 'taken <ms to wait>' or 'gone'. The row is
-- locked FOR UPDATE: of several instances claiming at once, one decides, and the others then find it taken.
CREATE OR REPLACE FUNCTION ${s}.mcp_task_claim(p_id text, p_worker text, p_lease_ms double precision, p_now double precision) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  clock double precision := ${s}.mcp_now_ms();
  r ${s}.mcp_tasks%ROWTYPE;
  lease double precision;
BEGIN
  SELECT * INTO r FROM ${s}.mcp_tasks WHERE id = p_id FOR UPDATE;
  IF NOT FOUND OR NOT ${liveRun("r")} THEN RETURN 'gone'; END IF;
  SELECT until INTO lease FROM ${s}.mcp_task_leases WHERE worker = r.worker;
  IF NOT r.released AND r.worker IS NOT NULL AND lease > clock THEN RETURN 'taken ' || greatest(1, ceil(lease - clock)); END IF;
  PERFORM ${s}.mcp_task_lease(p_worker, p_lease_ms, clock);
  UPDATE ${s}.mcp_tasks SET attempt = r.attempt + 1, released = false, since = clock, worker = p_worker WHERE id = p_id;
  RETURN 'claimed ' || (r.attempt + 1);
END $$;

-- A hand-off, fenced: 1 released (and told to every instance), -2 fenced, -1 gone.
CREATE OR REPLACE FUNCTION ${s}.mcp_task_release(p_id text, p_attempt integer, p_now double precision, p_channel text) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  clock double precision := ${s}.mcp_now_ms();
  r ${s}.mcp_tasks%ROWTYPE;
BEGIN
  SELECT * INTO r FROM ${s}.mcp_tasks WHERE id = p_id FOR UPDATE;
  IF NOT FOUND OR NOT ${liveRun("r")} THEN RETURN -1; END IF;
  IF NOT ${fence("r")} THEN RETURN -2; END IF;
  UPDATE ${s}.mcp_tasks SET released = true, since = clock, worker = NULL WHERE id = p_id;
  -- The hand-off message, as ../change-messages.ts reads it.
  PERFORM ${s}.mcp_task_changed(p_id, -1, '{"r":' || to_json(p_id)::text || ',"n":' || to_json(r.run_name)::text || '}', p_channel, clock);
  RETURN 1;
END $$;

-- A run record replaced (a checkpoint, a kept answer), fenced: 1 written, -2 fenced, -1 gone.
CREATE OR REPLACE FUNCTION ${s}.mcp_task_save_run(p_id text, p_attempt integer, p_now double precision, p_record text) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  clock double precision := ${s}.mcp_now_ms();
BEGIN
  UPDATE ${s}.mcp_tasks t SET record = p_record WHERE t.id = p_id AND ${liveRun("t")} AND ${fenceHolds};
  IF FOUND THEN RETURN 1; END IF;
  RETURN CASE WHEN EXISTS (SELECT 1 FROM ${s}.mcp_tasks t WHERE t.id = p_id AND ${liveRun("t")}) THEN -2 ELSE -1 END;
END $$;

-- The renewal, with the slow part of the sweep: old change rows, leases lapsed a minute ago (their holds
-- given up first, waiting since their deadline), expired tasks. True when the lease still held.
CREATE OR REPLACE FUNCTION ${s}.mcp_task_renew(p_worker text, p_lease_ms double precision, p_now double precision) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  clock double precision := ${s}.mcp_now_ms();
BEGIN
  DELETE FROM ${s}.mcp_task_changes WHERE at < clock - ${CHANGES_KEEP_MS};
  UPDATE ${s}.mcp_tasks t SET worker = NULL, since = l.until FROM ${s}.mcp_task_leases l
    WHERE l.worker = t.worker AND l.until <= clock - ${CHANGES_KEEP_MS} AND t.run_name IS NOT NULL AND NOT t.released AND t.json IS NULL;
  DELETE FROM ${s}.mcp_task_leases WHERE until <= clock - ${CHANGES_KEEP_MS};
  PERFORM ${s}.mcp_task_sweep(p_now);
  UPDATE ${s}.mcp_task_leases SET until = clock + p_lease_ms WHERE worker = p_worker AND until > clock;
  RETURN FOUND;
END $$;
`,
    `
-- Claims of waiting tasks in a batch, each its next attempt: the claimable rows are locked FOR UPDATE SKIP
-- LOCKED, so instances claiming at once never wait for one another and each gets different tasks; then,
-- under those locks and in a fresh snapshot, each is checked again as mcp_task_claim checks it (a row
-- claimed elsewhere after this statement's snapshot but before its lock is left alone).
CREATE OR REPLACE FUNCTION ${s}.mcp_task_claim_next(p_names text[], p_limit integer, p_worker text, p_lease_ms double precision, p_now double precision)
RETURNS TABLE (o_id text, o_name text, o_version integer, o_attempt integer) LANGUAGE plpgsql AS $$
DECLARE
  clock double precision := ${s}.mcp_now_ms();
  ids text[];
BEGIN
  SELECT array_agg(c.id ORDER BY c.waiting) INTO ids FROM (
    SELECT w.id, CASE WHEN w.released OR w.worker IS NULL THEN w.since
      ELSE COALESCE((SELECT l.until FROM ${s}.mcp_task_leases l WHERE l.worker = w.worker), w.since) END AS waiting
    FROM ${s}.mcp_tasks w
    WHERE w.run_name = ANY(p_names) AND ${liveRun("w")} AND (w.released OR w.worker IS NULL
      OR NOT EXISTS (SELECT 1 FROM ${s}.mcp_task_leases l WHERE l.worker = w.worker AND l.until > clock))
    ORDER BY 2 LIMIT p_limit FOR UPDATE OF w SKIP LOCKED) c;
  IF ids IS NULL THEN RETURN; END IF;
  PERFORM ${s}.mcp_task_lease(p_worker, p_lease_ms, clock);
  RETURN QUERY WITH claimed AS (
    UPDATE ${s}.mcp_tasks t SET attempt = t.attempt + 1, released = false, since = clock, worker = p_worker
    WHERE t.id = ANY(ids) AND ${liveRun("t")} AND (t.released OR t.worker IS NULL
      OR NOT EXISTS (SELECT 1 FROM ${s}.mcp_task_leases l WHERE l.worker = t.worker AND l.until > clock))
    RETURNING t.id, t.run_name, t.run_version, t.attempt)
  SELECT c.id, c.run_name, c.run_version, c.attempt FROM claimed c JOIN unnest(ids) WITH ORDINALITY u(id, n) ON u.id = c.id ORDER BY u.n;
END $$;
`,
  ];
}

/** The whole migration as one script, for those who run migrations themselves (docs/postgres.md). */
export function migrationSql(schema: string): string {
  const s = quoteIdentifier(schema);
  return [
    `CREATE SCHEMA IF NOT EXISTS ${s};`,
    `CREATE TABLE IF NOT EXISTS ${s}.mcp_task_meta (key text PRIMARY KEY, value integer NOT NULL);`,
    ...migrationSteps(schema),
    `INSERT INTO ${s}.mcp_task_meta (key, value) VALUES ('schema', ${SCHEMA_VERSION}) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value;`,
  ].join("\n");
}
