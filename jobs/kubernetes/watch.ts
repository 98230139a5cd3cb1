/**
 * The rollout watch of a repair run, durable: the run rests at `awaitingRollout` (a waitpoint naming the Deployment
 * and the generation its change produced) and no worker waits for it. A delayed job on the `kubernetes-rollouts`
 * queue reads the Deployment every KUBERNETES_ROLLOUT_CHECK_MS; while the rollout progresses it schedules the next
 * check, and once it is complete or has failed (`ProgressDeadlineExceeded`, or KUBERNETES_ROLLOUT_MAX_MS passed)
 * it resolves the waitpoint, and the run's next segment settles it (repair-step.ts: repaired, or rolled back). A
 * check lost with Redis is re-driven by the `kubernetes.rollouts` sweep: each check leaves a Redis mark that
 * outlives the next one, and a resting run without a mark gets a check again. Resolving is exactly once (the
 * waitpoint resolves under the run's lock; a second resolve is 409 and ignored), so a duplicated check is harmless.
 */
import type { Deps } from '../../shared/deps.js';
import { getRun, openWaitpoint, runsRestingAt } from '../../shared/db/runs.js';
import { AppError, conflict } from '../../shared/errors.js';
import { KUBERNETES_ROLLOUTS_QUEUE } from '../../shared/queues.js';
import { enqueueResumed, inRunTx, resolveRunWaitpoint } from '../orchestrator/index.js';
import { ask, openCluster } from './cluster.js';
import { rolloutState } from './rollout.js';

const AWAITING_ROLLOUT = 'awaitingRollout';
const markKey = (deps: Pick<Deps, 'config'>, runId: string) => `${deps.config.QUEUE_PREFIX}:k8s-rollout:${runId}`;

interface CheckData {
  runId: string;
  accountId: string;
  attempt: number;
}

/** Schedules the next check of a run's rollout; its id makes a repeated schedule of the same attempt one job. */
export async function scheduleRolloutCheck(
  deps: Pick<Deps, 'queues' | 'config' | 'redis'>,
  runId: string,
  accountId: string,
  attempt: number,
): Promise<void> {
  const every = deps.config.KUBERNETES_ROLLOUT_CHECK_MS;
  // The mark outlives the next check by a margin: the sweep re-drives only runs whose checks stopped.
  await deps.redis.set(markKey(deps, runId), String(attempt), 'PX', every * 3 + 60_000);
  await deps.queues
    .queue(KUBERNETES_ROLLOUTS_QUEUE)
    .add('rolloutCheck', { runId, accountId, attempt } satisfies CheckData, {
      jobId: `${runId}.rollout.${attempt}`,
      delay: every,
      removeOnComplete: true,
      removeOnFail: 1000,
    });
}

type Verdict = { phase: 'progressing' } | { phase: 'complete' | 'failed'; message: string; state: unknown };

async function judge(deps: Deps, accountId: string, payload: Record<string, any>): Promise<Verdict> {
  const c = await openCluster(deps, accountId, String(payload.credential));
  const { namespace, deployment } = payload as { namespace: string; deployment: string };
  const d = await ask(`read deployment ${namespace}/${deployment}`, () =>
    c.apps.readNamespacedDeployment({ name: deployment, namespace }),
  );
  const state = rolloutState(JSON.parse(JSON.stringify(d)), Number(payload.generation ?? 0));
  if (state.phase !== 'progressing') return { phase: state.phase, message: state.message, state };
  const started = Date.parse(String(payload.startedAt ?? ''));
  if (Number.isFinite(started) && Date.now() - started > deps.config.KUBERNETES_ROLLOUT_MAX_MS)
    return { phase: 'failed', message: `the rollout did not finish in time (${state.message})`, state };
  return { phase: 'progressing' };
}

/** One check: resolve the waitpoint when the rollout has ended, else schedule the next. */
export async function processRolloutCheck(deps: Deps, data: CheckData): Promise<unknown> {
  const run = await getRun(deps.db, data.accountId, data.runId);
  if (!run || run.finished_at) return { skipped: 'finished' };
  const next = () => scheduleRolloutCheck(deps, data.runId, data.accountId, data.attempt + 1);
  // Applied but not at rest yet (the step's outcome is being committed): look again next time.
  if (run.status === 'queued' || run.status === 'running') return next().then(() => ({ outcome: 'notAtRest' }));
  if (run.status !== AWAITING_ROLLOUT) return { skipped: run.status };
  const wp = await openWaitpoint(deps.db, data.runId);
  if (!wp || wp.domain !== 'kubernetes' || wp.kind !== AWAITING_ROLLOUT) return { skipped: 'noWaitpoint' };
  let verdict: Verdict;
  try {
    verdict = await judge(deps, data.accountId, wp.payload as Record<string, unknown>);
  } catch (err) {
    // The cluster away (5xx, no answer) is waited out; a refusal (credential, permission, gone) ends the watch.
    if (!(err instanceof AppError) || err.status >= 500) return next().then(() => ({ outcome: 'unreachable' }));
    verdict = { phase: 'failed', message: err.message, state: null };
  }
  if (verdict.phase === 'progressing') return next().then(() => ({ outcome: 'progressing' }));
  try {
    const resumed = await inRunTx(deps, data.runId, data.accountId, (trx, emit) =>
      resolveRunWaitpoint(trx, emit, data.accountId, data.runId, (r, w) => {
        if (w.domain !== 'kubernetes' || w.kind !== AWAITING_ROLLOUT)
          throw conflict(`Run ${data.runId} waits on something else than its rollout`);
        return { resolution: { ...verdict }, route: r.route };
      }),
    );
    await enqueueResumed(deps, data.runId, resumed);
  } catch (err) {
    if (!(err instanceof AppError) || err.status !== 409) throw err;
    return { outcome: 'alreadyResolved' };
  }
  await deps.redis.del(markKey(deps, data.runId));
  return { outcome: verdict.phase };
}

/** The sweep: runs resting at `awaitingRollout` whose checks stopped (no mark) get one again. */
export async function sweepRollouts(deps: Deps): Promise<number> {
  let redriven = 0;
  let after = '';
  for (;;) {
    const rows = await runsRestingAt(deps.db, AWAITING_ROLLOUT, 60, after, 100);
    for (const row of rows) {
      if (await deps.redis.exists(markKey(deps, row.id))) continue;
      await scheduleRolloutCheck(deps, row.id, row.account_id, Date.now());
      redriven++;
    }
    if (rows.length < 100) return redriven;
    after = rows[rows.length - 1]!.id;
  }
}
