import type { Knex } from 'knex';
import * as schedulesDb from '../../jobs/schedules/repository.js';
import * as signalsDb from '../../jobs/signals/repository.js';
import type pg from 'pg';
import { listAgents } from '../../jobs/agents/repository.js';
import { listListings } from '../../jobs/hunt/catalog-repository.js';
import { listEnvelopes } from '../../jobs/envelopes/repository.js';
import { listMissions, missionsToClose } from '../../jobs/proxy/repository.js';
import { listProviders } from '../../jobs/proxy/providers-repository.js';
import { claimDeliveries, nextPushDue, readyDeliveries } from '../../shared/db/deliveries.js';
import { chainOf, deliveriesOfEvent, hasChild, listDeliveries } from '../../shared/db/delivery-reads.js';
import { listEvents } from '../../shared/db/outbox.js';
import { listRuns } from '../../shared/db/runs.js';
import { admissionDue, admitFromHold, holdOf, insertRun } from '../../shared/db/admissions.js';
import { listSubscriptions } from '../../jobs/events/subscriptions-repository.js';
import { listTasks } from '../../jobs/tasks/repository.js';
import * as retention from '../../shared/db/retention.js';

/** Ids the queries look for: an account with many rows, and one record of each kind inside it. */
export interface PlanContext {
  accountId: string;
  conversationId: string;
  subscriptionId: string;
  eventId: string;
  rootId: string;
  deliveryId: string;
  /** A run id in the middle of the account's runs: the cursor of a second page. */
  runCursor: string;
}

export interface PlanQuery {
  name: string;
  /**
   * Whether the index must also give the order (a keyset page or a claim): a Sort over the account's rows is then a
   * failure.
   */
  ordered: boolean;
  /**
   * Indexes the plan must use (made for it in migrations/20261122008802_list_and_retention_indexes.ts,
   * 20261124000001_agents_envelopes.ts and 20261124001200_proxy_missions.ts); `a|b`: either.
   */
  uses: string[];
  run: (db: Knex, c: PlanContext) => Promise<unknown>;
}

const DAY = 86_400_000;
const TERMINAL = ['ready', 'failed', 'canceled'];

/**
 * Every list and claim query of the repositories, called as the services call
 * them (the SQL explained is what the code sends), and the retention deletes.
 */
export const PLAN_QUERIES: PlanQuery[] = [
  {
    name: 'runs: list',
    ordered: true,
    uses: ['runs_account_page'],
    run: (db, c) => listRuns(db, c.accountId, { limit: 50 }),
  },
  {
    name: 'runs: list, second page',
    ordered: true,
    uses: ['runs_account_page'],
    run: (db, c) => listRuns(db, c.accountId, { limit: 50, cursor: c.runCursor }),
  },
  // Admission (shared/db/admissions.ts): the places an account's runs in flight hold, and its held runs in line.
  {
    name: 'runs: a submission takes a place or is held',
    ordered: false,
    uses: ['runs_account_slots', 'runs_held'],
    run: (db, c) =>
      insertRun(
        db,
        {
          id: 'run_plan',
          accountId: c.accountId,
          conversationId: null,
          taskId: null,
          request: 'plan',
          input: {},
          route: ['hunt'],
          routing: {},
          channel: 'api',
          submittedBy: null,
          grantScopes: [],
        },
        { type: 'trace', data: {} },
        { cap: 4, heldMax: 10, pickable: true },
      ),
  },
  {
    name: 'runs: admission due',
    ordered: false,
    uses: ['run_admissions_pkey', 'runs_account_slots'],
    run: (db, c) => admissionDue(db, c.accountId, 2),
  },
  {
    name: 'runs: admit held runs',
    ordered: false,
    uses: ['runs_held', 'runs_account_slots'],
    run: (db, c) => admitFromHold(db, c.accountId, { cap: 4, contended: 2 }),
  },
  {
    name: "runs: a held run's place in line",
    ordered: false,
    uses: ['runs_held'],
    run: (db, c) => holdOf(db, c.runCursor),
  },
  {
    name: 'runs: list by status',
    ordered: true,
    uses: ['runs_account_status_page'],
    run: (db, c) => listRuns(db, c.accountId, { limit: 50, status: 'running' }),
  },
  {
    name: 'runs: list by conversation',
    ordered: true,
    uses: ['runs_account_conversation_page'],
    run: (db, c) => listRuns(db, c.accountId, { limit: 50, conversationId: c.conversationId }),
  },
  {
    name: 'runs: list by domain',
    ordered: true,
    uses: ['runs_account_page'],
    run: (db, c) => listRuns(db, c.accountId, { limit: 50, domain: 'hunt' }),
  },
  {
    name: 'runs: list by creation time',
    ordered: true,
    uses: ['runs_account_page'],
    run: (db, c) =>
      listRuns(db, c.accountId, {
        limit: 50,
        createdAfter: new Date(Date.now() - 30 * DAY).toISOString(),
        createdBefore: new Date().toISOString(),
      }),
  },
  {
    name: 'tasks: list',
    ordered: true,
    uses: ['tasks_account_page'],
    run: (db, c) => listTasks(db, c.accountId, {}, 50),
  },
  {
    name: 'tasks: list by status',
    ordered: true,
    uses: ['tasks_account_status_page'],
    run: (db, c) => listTasks(db, c.accountId, { status: 'running' }, 50),
  },
  {
    name: 'events: list',
    ordered: true,
    uses: ['events_account_page'],
    run: (db, c) => listEvents(db, c.accountId, {}, 50),
  },
  {
    name: 'events: list by type',
    ordered: true,
    uses: ['events_account_type_page'],
    run: (db, c) => listEvents(db, c.accountId, { type: 'run.failed' }, 50),
  },
  {
    name: 'events: list unacknowledged',
    ordered: true,
    uses: ['events_account_unacked_page'],
    run: (db, c) => listEvents(db, c.accountId, { acknowledged: false }, 50),
  },
  {
    name: 'deliveries: list',
    ordered: true,
    uses: ['deliveries_account_page'],
    run: (db, c) => listDeliveries(db, c.accountId, {}, 50),
  },
  {
    name: 'deliveries: list by status',
    ordered: true,
    uses: ['deliveries_account_status_page'],
    run: (db, c) => listDeliveries(db, c.accountId, { status: 'failed' }, 50),
  },
  {
    name: 'deliveries: list by subscription',
    ordered: true,
    uses: ['deliveries_subscription_page'],
    run: (db, c) => listDeliveries(db, c.accountId, { subscriptionId: c.subscriptionId }, 50),
  },
  {
    name: 'deliveries: list by event',
    ordered: true,
    uses: ['deliveries_event'],
    run: (db, c) => listDeliveries(db, c.accountId, { eventId: c.eventId }, 50),
  },
  {
    name: 'deliveries: of an event',
    ordered: false,
    uses: ['deliveries_event'],
    run: (db, c) => deliveriesOfEvent(db, c.eventId),
  },
  { name: 'deliveries: chain', ordered: false, uses: ['deliveries_chain'], run: (db, c) => chainOf(db, c.rootId) },
  {
    name: 'deliveries: has a retry',
    ordered: false,
    uses: ['deliveries_parent'],
    run: (db, c) => hasChild(db, c.deliveryId),
  },
  {
    name: 'deliveries: due (pull workers)',
    ordered: false,
    uses: ['deliveries_pull_ready'],
    run: (db, c) => readyDeliveries(db, c.accountId, 50),
  },
  {
    name: 'deliveries: claim push',
    ordered: true,
    uses: ['deliveries_ready'],
    run: (db) => claimDeliveries(db, { accountId: null, mode: 'push', limit: 50, leaseSeconds: 60, claimedBy: 'plan' }),
  },
  {
    name: 'deliveries: claim pull',
    ordered: true,
    uses: ['deliveries_pull_ready'],
    run: (db, c) =>
      claimDeliveries(db, { accountId: c.accountId, mode: 'pull', limit: 50, leaseSeconds: 60, claimedBy: 'plan' }),
  },
  {
    name: 'deliveries: next push due',
    ordered: true,
    uses: ['deliveries_ready|deliveries_pull_ready'],
    run: (db) => nextPushDue(db),
  },
  {
    name: 'subscriptions: list',
    ordered: true,
    uses: ['subscriptions_account_page'],
    run: (db, c) => listSubscriptions(db, c.accountId, 50),
  },
  {
    name: 'catalog: list',
    ordered: true,
    uses: ['catalog_account_page'],
    run: (db, c) => listListings(db, c.accountId, 50),
  },
  {
    name: 'agents: list',
    ordered: true,
    uses: ['agents_account_page'],
    run: (db, c) => listAgents(db, c.accountId, {}, 50),
  },
  {
    name: 'agents: list by domain',
    ordered: true,
    uses: ['agents_account_page'],
    run: (db, c) => listAgents(db, c.accountId, { domain: 'hunt' }, 50),
  },
  {
    name: 'envelopes: list',
    ordered: true,
    uses: ['envelopes_account_page'],
    run: (db, c) => listEnvelopes(db, c.accountId, {}, 50),
  },
  {
    name: 'envelopes: list by status',
    ordered: true,
    uses: ['envelopes_account_status_page'],
    run: (db, c) => listEnvelopes(db, c.accountId, { status: 'queued' }, 50),
  },
  {
    name: 'envelopes: list by recipient',
    ordered: true,
    uses: ['envelopes_account_recipient_page'],
    run: (db, c) => listEnvelopes(db, c.accountId, { recipient: 'courier' }, 50),
  },
  {
    name: 'envelopes: list by plan',
    ordered: true,
    uses: ['envelopes_account_plan_page'],
    run: (db, c) => listEnvelopes(db, c.accountId, { planId: 'dlg_x' }, 50),
  },
  {
    name: 'envelopes: list by run',
    ordered: true,
    uses: ['envelopes_run_page'],
    run: (db, c) => listEnvelopes(db, c.accountId, { runId: c.runCursor }, 50),
  },
  {
    name: 'envelopes: list by task',
    ordered: true,
    uses: ['envelopes_task_page'],
    run: (db, c) => listEnvelopes(db, c.accountId, { taskId: 'task_x' }, 50),
  },
  {
    name: 'proxy missions: list',
    ordered: true,
    uses: ['proxy_missions_account_page'],
    run: (db, c) => listMissions(db, c.accountId, {}, 50),
  },
  {
    name: 'proxy missions: list by status',
    ordered: true,
    uses: ['proxy_missions_account_status_page'],
    run: (db, c) => listMissions(db, c.accountId, { status: 'open' }, 50),
  },
  {
    name: 'proxy missions: list by kind',
    ordered: true,
    uses: ['proxy_missions_account_kind_page'],
    run: (db, c) => listMissions(db, c.accountId, { kind: 'call' }, 50),
  },
  {
    name: 'proxy missions: list by task',
    ordered: true,
    uses: ['proxy_missions_account_task_page'],
    run: (db, c) => listMissions(db, c.accountId, { taskId: 'task_x' }, 50),
  },
  {
    name: 'proxy missions: due to close',
    ordered: true,
    uses: ['proxy_missions_live_expiry'],
    run: (db) => missionsToClose(db, ['open', 'inProgress'], 200),
  },
  {
    name: 'proxy providers: list',
    ordered: true,
    uses: ['proxy_providers_account_page'],
    run: (db, c) => listProviders(db, c.accountId, {}, 50),
  },
  {
    name: 'signals: list',
    ordered: true,
    uses: ['signals_account_page'],
    run: (db, c) => signalsDb.listSignals(db, c.accountId, { limit: 50 }),
  },
  {
    name: 'signals: list by type',
    ordered: true,
    uses: ['signals_account_type_page'],
    run: (db, c) => signalsDb.listSignals(db, c.accountId, { type: 'price.changed', limit: 50 }),
  },
  {
    name: 'signals: list by subject',
    ordered: true,
    uses: ['signals_account_subject_page'],
    run: (db, c) => signalsDb.listSignals(db, c.accountId, { subject: 'sku-1', limit: 50 }),
  },
  {
    name: 'signal rules: list',
    ordered: true,
    uses: ['signal_rules_account_page'],
    run: (db, c) => signalsDb.listRules(db, c.accountId, { limit: 50 }),
  },
  {
    name: 'schedules: list',
    ordered: true,
    uses: ['schedules_account_page'],
    run: (db, c) => schedulesDb.listSchedules(db, c.accountId, { limit: 50 }),
  },
  {
    name: 'schedules: claim due',
    ordered: true,
    uses: ['schedules_due'],
    run: (db) => db.transaction((trx) => schedulesDb.claimDueSchedules(trx, new Date(), 50)),
  },
  {
    name: 'retention: run events',
    ordered: true,
    uses: ['runs_events_untrimmed', 'run_events_kept_pkey'],
    run: (db) => retention.trimRunEvents(db, { olderThanDays: 30, terminal: TERMINAL, batch: 500 }),
  },
  {
    name: 'retention: run steps',
    ordered: true,
    uses: ['runs_steps_untrimmed', 'run_steps_run_id_index'],
    run: (db) => retention.trimRunSteps(db, { olderThanDays: 30, terminal: TERMINAL, batch: 500 }),
  },
  {
    name: 'retention: deliveries',
    ordered: true,
    uses: ['deliveries_finished', 'deliveries_parent', 'deliveries_chain'],
    run: (db) => retention.deleteFinishedDeliveries(db, { olderThanDays: 30, batch: 1000 }),
  },
  {
    name: 'retention: mail bodies',
    ordered: true,
    uses: ['outbound_mails_with_body'],
    run: (db) => retention.hashMailBodies(db, { olderThanHours: 24, batch: 1000 }),
  },
  {
    name: 'retention: mails',
    ordered: true,
    uses: ['outbound_mails_created'],
    run: (db) => retention.deleteMails(db, { olderThanDays: 30, batch: 1000 }),
  },
  {
    name: 'retention: idempotency keys',
    ordered: true,
    uses: ['idempotency_keys_created_at_index'],
    run: (db) => retention.deleteIdempotencyKeys(db, { olderThanHours: 24, batch: 1000 }),
  },
];

export interface PlanReport {
  name: string;
  sql: string;
  /** `Index Scan using runs_account_id on runs`, one per scan node. */
  scans: string[];
  seqScans: string[];
  /**
   * Sort nodes that count against an ordered query (with real statistics, those over more than SMALL_SORT_ROWS rows).
   */
  sorts: number;
  /** Indexes it should use and does not. */
  missing: string[];
  ok: boolean;
  plan: string;
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Plan Rows'?: number;
  Plans?: PlanNode[];
}

/**
 * Sorting what an index already narrowed to a few rows is fine; sorting more than this means the index did not give the
 * order.
 */
const SMALL_SORT_ROWS = 1000;

function walk(node: PlanNode, out: PlanNode[] = []): PlanNode[] {
  out.push(node);
  for (const child of node.Plans ?? []) walk(child, out);
  return out;
}

const ROLLBACK = new Error('rollback');

/** The statements `run` sends, captured in a transaction that is rolled back (a claim or a delete changes nothing). */
async function captureStatements(
  db: Knex,
  run: (trx: Knex) => Promise<unknown>,
): Promise<Array<{ sql: string; bindings: unknown[] }>> {
  const seen: Array<{ sql: string; bindings: unknown[] }> = [];
  const listener = (q: { sql: string; bindings?: unknown[] }) => {
    if (!/^\s*(begin|commit|rollback|savepoint|release|set)\b/i.test(q.sql))
      seen.push({ sql: q.sql, bindings: q.bindings ?? [] });
  };
  db.on('query', listener);
  try {
    await db.transaction(async (trx) => {
      await run(trx);
      throw ROLLBACK;
    });
  } catch (err) {
    if (err !== ROLLBACK) throw err;
  } finally {
    db.off('query', listener);
  }
  return seen;
}

/**
 * EXPLAIN of one captured statement, on a connection of its own: the
 * captured SQL is in the driver's form ($1, $2…), which only pg itself takes.
 */
async function explainStatement(
  db: Knex,
  st: { sql: string; bindings: unknown[] },
  o: { forceIndex: boolean; ordered: boolean; analyze: boolean },
): Promise<[PlanNode, string]> {
  const conn = (await db.client.acquireConnection()) as pg.ClientBase;
  try {
    await conn.query('BEGIN');
    if (o.forceIndex)
      await conn.query(`SET LOCAL enable_seqscan = off${o.ordered ? '; SET LOCAL enable_sort = off' : ''}`);
    const json = await conn.query(`EXPLAIN (FORMAT JSON) ${st.sql}`, st.bindings);
    // ANALYZE runs the statement; the transaction is rolled back, so a claim or a delete changes nothing.
    const text = await conn.query(`EXPLAIN ${o.analyze ? '(ANALYZE, BUFFERS) ' : ''}${st.sql}`, st.bindings);
    return [
      json.rows[0]['QUERY PLAN'][0].Plan,
      text.rows.map((r: { 'QUERY PLAN': string }) => r['QUERY PLAN']).join('\n'),
    ];
  } finally {
    await conn.query('ROLLBACK').catch(() => undefined);
    await db.client.releaseConnection(conn);
  }
}

/**
 * EXPLAINs every statement of every query. `forceIndex` turns sequential
 * scans off (and sorts, for an ordered query), as a test on small tables
 * does: the planner then picks an index whenever one can serve the query, so
 * a Seq Scan (or a Sort on an ordered query) left in the plan means no index can.
 * `requireIndexes` also fails a plan that does not use the index made for
 * its query (on real statistics the planner may rightly prefer another: the
 * primary key, for an account that owns half the table).
 * `analyze` adds actual row counts and times to the text plan (the bench).
 */
export async function explainQueries(
  db: Knex,
  c: PlanContext,
  opts: { forceIndex: boolean; requireIndexes: boolean; analyze?: boolean; queries?: PlanQuery[] },
): Promise<PlanReport[]> {
  const reports: PlanReport[] = [];
  for (const q of opts.queries ?? PLAN_QUERIES) {
    const statements: Array<Omit<PlanReport, 'ok' | 'missing'> & { used: Set<string | undefined> }> = [];
    for (const st of await captureStatements(db, (trx) => q.run(trx, c))) {
      const [json, text] = await explainStatement(db, st, {
        forceIndex: opts.forceIndex,
        ordered: q.ordered,
        analyze: opts.analyze ?? false,
      });
      const nodes = walk(json);
      const scans = nodes
        .filter((n) => /Scan$/.test(n['Node Type']) && n['Relation Name'])
        .map((n) => `${n['Node Type']}${n['Index Name'] ? ` using ${n['Index Name']}` : ''} on ${n['Relation Name']}`);
      const seqScans = nodes.filter((n) => n['Node Type'] === 'Seq Scan').map((n) => n['Relation Name'] ?? '?');
      const sortNodes = nodes.filter((n) => n['Node Type'] === 'Sort' || n['Node Type'] === 'Incremental Sort');
      // With sorts priced out (forceIndex), any Sort left means no index gives the order; on real statistics only a
      // large one counts.
      const sorts = sortNodes.filter(
        (n) => opts.forceIndex || (n.Plans?.[0]?.['Plan Rows'] ?? 0) > SMALL_SORT_ROWS,
      ).length;
      const used = new Set(nodes.map((n) => n['Index Name']).filter(Boolean));
      statements.push({ name: q.name, sql: st.sql, scans, seqScans, sorts, plan: text, used });
    }
    // A query may send several statements; what it must use is judged over all of them.
    const missing = q.uses.filter(
      (alternatives) => !statements.some((s) => alternatives.split('|').some((i) => s.used.has(i))),
    );
    for (const { used: _u, ...s } of statements) {
      reports.push({
        ...s,
        missing,
        ok: s.seqScans.length === 0 && (!q.ordered || s.sorts === 0) && (!opts.requireIndexes || missing.length === 0),
      });
    }
  }
  return reports;
}
