import pg from 'pg';
import type { LocalService } from '../local-services.js';

/** The bench's own statistics queries carry this, so they are left out of the counts. */
const MARK = '/* awp-bench */';

function urlOf(databaseUrl: string, database: string): string {
  const u = new URL(databaseUrl);
  u.pathname = `/${database}`;
  return u.toString();
}

async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/**
 * Loads pg_stat_statements on the bench's private cluster: sets
 * shared_preload_libraries, restarts it (`restart`) and creates the view in
 * the `postgres` database, so the app's database stays as migrated. On a
 * server of the caller's (BENCH_DATABASE_URL, `p` null) it changes nothing
 * and only checks that the view is there (it throws otherwise).
 */
export async function enableStatements<P extends LocalService>(
  p: P | null,
  restart: (() => Promise<P>) | null,
  databaseUrl?: string,
): Promise<P> {
  let server = p;
  const adminUrl = urlOf(p?.url ?? databaseUrl!, 'postgres');
  if (p && restart) {
    await withClient(adminUrl, (c) => c.query(`ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'`));
    await p.stop();
    server = await restart();
  }
  await withClient(adminUrl, async (c) => {
    if (p) {
      await c.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
      // Planning time too (known once the library is loaded): statements sent unprepared are planned at every call.
      await c.query('ALTER SYSTEM SET pg_stat_statements.track_planning = on');
      await c.query('SELECT pg_reload_conf()');
    }
    await c.query(`${MARK} SELECT 1 FROM pg_stat_statements LIMIT 1`);
  });
  return server as P;
}

export interface PgSnapshot {
  xactCommit: number;
  xactRollback: number;
  tupInserted: number;
  tupUpdated: number;
  tupDeleted: number;
  walBytes: number;
  /** pg_stat_statements by query id (null when it is not loaded). */
  statements: Map<string, { query: string; calls: number; rows: number; planMs: number; execMs: number }> | null;
  tables: Record<string, { inserted: number; updated: number; deleted: number; bytes: number }>;
}

/**
 * Postgres's counters for the bench database. A backend flushes its counters
 * at most once a second, and one that went idle within a second of its last
 * flush holds them for PGSTAT_IDLE_INTERVAL (10 s); so this reads only after
 * they have not moved for BENCH_PG_SETTLE_MS (11 s). The one transaction it
 * makes in the bench database is counted in the next snapshot (`SNAPSHOT_XACTS`).
 */
export async function pgSnapshot(databaseUrl: string, statements: boolean): Promise<PgSnapshot> {
  const dbName = new URL(databaseUrl).pathname.slice(1);
  const admin = urlOf(databaseUrl, 'postgres');
  return withClient(admin, async (c) => {
    const read = async () =>
      (
        await c.query(
          `${MARK} SELECT xact_commit::bigint AS c, xact_rollback::bigint AS r,
        tup_inserted::bigint AS i, tup_updated::bigint AS u, tup_deleted::bigint AS d
      FROM pg_stat_database WHERE datname = $1`,
          [dbName],
        )
      ).rows[0] as Record<string, string>;
    let last = JSON.stringify(await read());
    let stableSince = Date.now();
    const quiet = Number(process.env.BENCH_PG_SETTLE_MS ?? 11_000);
    const deadline = Date.now() + 3 * quiet;
    while (Date.now() - stableSince < quiet && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 500));
      const now = JSON.stringify(await read());
      if (now !== last) {
        last = now;
        stableSince = Date.now();
      }
    }
    const db = JSON.parse(last) as Record<string, string>;
    const wal = (await c.query(`${MARK} SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint AS b`)).rows[0]
      .b as string;
    let stmts: PgSnapshot['statements'] = null;
    if (statements) {
      const { rows } = await c.query(
        `${MARK} SELECT queryid::text AS id, query, calls::bigint AS calls,
          rows::bigint AS rows, total_plan_time AS plan, total_exec_time AS exec FROM pg_stat_statements
        WHERE dbid = (SELECT oid FROM pg_database WHERE datname = $1) AND query NOT LIKE '%awp-bench%'`,
        [dbName],
      );
      stmts = new Map(
        rows.map((r: { id: string; query: string; calls: string; rows: string; plan: number; exec: number }) => [
          r.id,
          {
            query: r.query,
            calls: Number(r.calls),
            rows: Number(r.rows),
            planMs: Number(r.plan),
            execMs: Number(r.exec),
          },
        ]),
      );
    }
    const tables = await withClient(databaseUrl, async (b) => {
      const { rows } = await b.query(
        `${MARK} SELECT relname, n_tup_ins::bigint AS i, n_tup_upd::bigint AS u, n_tup_del::bigint AS d, ` +
          `pg_total_relation_size(relid)::bigint AS bytes FROM pg_stat_user_tables`,
      );
      return Object.fromEntries(
        rows.map((r: Record<string, string>) => [
          r.relname,
          { inserted: Number(r.i), updated: Number(r.u), deleted: Number(r.d), bytes: Number(r.bytes) },
        ]),
      );
    });
    return {
      xactCommit: Number(db.c),
      xactRollback: Number(db.r),
      tupInserted: Number(db.i),
      tupUpdated: Number(db.u),
      tupDeleted: Number(db.d),
      walBytes: Number(wal),
      statements: stmts,
      tables,
    };
  });
}

/** pg_stat_statements' calls and execution time by query id, read at once (timings need no settling). */
export async function statementTimes(
  databaseUrl: string,
): Promise<Map<string, { query: string; calls: number; ms: number }>> {
  const dbName = new URL(databaseUrl).pathname.slice(1);
  return withClient(urlOf(databaseUrl, 'postgres'), async (c) => {
    const { rows } = await c.query(
      `${MARK} SELECT queryid::text AS id, query, calls::bigint AS calls, total_exec_time AS ms FROM pg_stat_statements
      WHERE dbid = (SELECT oid FROM pg_database WHERE datname = $1) AND query NOT LIKE '%awp-bench%'`,
      [dbName],
    );
    return new Map(
      rows.map((r: { id: string; query: string; calls: string; ms: number }) => [
        r.id,
        { query: r.query, calls: Number(r.calls), ms: Number(r.ms) },
      ]),
    );
  });
}

/** Mean execution time (ms) per statement between two `statementTimes` readings, for statements called in between. */
export function meanTimes(
  before: Map<string, { calls: number; ms: number }>,
  after: Map<string, { query: string; calls: number; ms: number }>,
): Map<string, { query: string; calls: number; meanMs: number }> {
  const out = new Map<string, { query: string; calls: number; meanMs: number }>();
  for (const [id, a] of after) {
    const calls = a.calls - (before.get(id)?.calls ?? 0);
    if (calls > 0) out.set(id, { query: a.query, calls, meanMs: (a.ms - (before.get(id)?.ms ?? 0)) / calls });
  }
  return out;
}

/** Transactions a snapshot itself makes in the bench database. */
export const SNAPSHOT_XACTS = 1;

/**
 * A short name for a statement: its verb and the table it writes or reads
 * first (`insert run_events`, `select runs`, `update runs`, `BEGIN`), so the
 * counts read as "what the engine asks Postgres per run".
 */
export function queryFamily(query: string): string {
  const q = query
    .replace(/\/\*.*?\*\//gs, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();
  const first = q.split(/[ ;(]/)[0] ?? '';
  if (['begin', 'commit', 'rollback', 'savepoint', 'release', 'set', 'show'].includes(first))
    return first.toUpperCase();
  const table = (re: RegExp) => q.match(re)?.[1];
  const verbs: Array<[string, RegExp]> = [
    ['insert', /insert into "?([a-z_0-9]+)"?/],
    ['update', /(?:^|[ (])update "?([a-z_0-9]+)"? set/],
    ['delete', /delete from "?([a-z_0-9]+)"?/],
  ];
  const writes = verbs
    .map(([verb, re]) => [verb, table(re)] as const)
    .filter(([, t]) => t)
    .map(([verb, t]) => `${verb} ${t}`);
  if (writes.length > 0) return writes.join(' + ');
  if (first === 'select' || first === 'with') {
    const from = table(/ from "?([a-z_0-9]+)"?/);
    return from ? `select ${from}${/ for (no key )?update/.test(q) ? ' for update' : ''}` : 'select (no table)';
  }
  return first;
}
