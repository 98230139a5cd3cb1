import type { Deps } from '../../shared/deps.js';
import { invalidPayload, notFound, policyViolation } from '../../shared/errors.js';
import { selfApprovalError } from '../approvals/index.js';
import { grantRefusal } from './grant-use.js';
import { getGrant } from './grants-repository.js';
import { Reply } from '../../shared/http/route-spec.js';
import type { Principal } from '../../shared/schemas/auth.js';
import { DeliveryRun } from '../../shared/schemas/dev-delivery.js';
import type { Static } from '@sinclair/typebox';
import { assertValid } from '../../shared/validation.js';
import type { DomainName } from '../../shared/domain-names.js';
import { waitForRest, findRun, resumeRun, submitRun, runLinks } from '../orchestrator/index.js';
import { stepHandler } from '../steps.js';
import { inferMode } from './autonomy.js';
import { analyzersFor, MIGRATION_FILE } from './stage-inputs.js';

type DeliveryBody = Static<typeof DeliveryRun>;
type Obj = Record<string, any>;

/**
 * The route of a delivery run: configure (when there are files), the analyzers the files call for, the release plan,
 * the delivery gate.
 */
function deliveryRoute(files: Record<string, string>): DomainName[] {
  const extra = analyzersFor(files).filter((d) => stepHandler(d));
  return [...(Object.keys(files).length ? ['environment' as const] : []), ...extra, 'cicd', 'delivery'];
}

function migrationsOf(files: Record<string, string>) {
  return Object.entries(files)
    .filter(([p]) => MIGRATION_FILE.test(p))
    .map(([id, sql]) => ({ id, sql }));
}

/**
 * The answer of a delivery run: its status, stages and handoff (the same fields GET /v1/runs/{runId} shows); a run
 * still going (`links` given) has none yet.
 */
export function deliveryView(result: Obj) {
  const d = (result.results?.delivery ?? {}) as Obj;
  return {
    ok: true,
    runId: result.runId as string,
    status: result.status as string,
    stages: d.stages ?? [],
    handoff:
      d.handoff ??
      (result.links
        ? { to: 'operator', message: 'the run is still going; follow its events' }
        : { to: 'owner', message: result.error ?? 'the run ended before its delivery stage' }),
    proofCard: result.proofCard ?? null,
    ...(result.error ? { error: result.error } : {}),
    ...(result.links ? { links: result.links } : {}),
  };
}

/** What the grant covered, as the run's delivery step recorded it (nothing yet while the run has not reached it). */
function autonomyOf(result: Obj) {
  const a = ((result.results?.delivery as Obj | undefined)?.autonomy ?? {}) as Obj;
  return {
    autonomousToCompletion: a.autonomousToCompletion === true,
    budgetUsed: a.budgetUsed ?? 0,
    actions: a.actions ?? [],
    maxActions: a.maxActions ?? 0,
    needsGrant: a.needsGrant ?? [],
    reasons: a.reasons ?? [],
  };
}

/** The spec's answer of an autonomous run: `ok`, `status`, `autonomy`, and the run itself as `result`. */
const autonomousView = (mode: 'delivery' | 'environment') => (result: Obj) => {
  const { ok, status, ...run } = deliveryView(result);
  return { ok, status, autonomy: autonomyOf(result), result: { ...run, mode } };
};

/** Answers once the run rests (up to RUN_SYNC_WAIT_MS), else 202 in the same view, with the run's links. */
async function answer(
  deps: Deps,
  run: { id: string; segment: number; status: string },
  view: (r: Obj) => unknown,
): Promise<unknown> {
  const result = (await waitForRest(deps, run.id, deps.config.RUN_SYNC_WAIT_MS, run.segment).catch(
    () => null,
  )) as Obj | null;
  if (result) return view(result);
  const links = runLinks(run.id);
  return new Reply(202, view({ runId: run.id, status: run.status, links }), { Location: links.self });
}

async function submitDelivery(deps: Deps, principal: Principal, body: Obj, extra: Obj = {}) {
  const files = (body.files ?? {}) as Record<string, string>;
  const migrations = migrationsOf(files);
  return submitRun(deps, principal, {
    request: `deliver ${body.service} ${body.version} to ${body.environment}`,
    domainRoute: deliveryRoute(files),
    metadata: { ...body, ...(migrations.length ? { migrations } : {}), ...extra, mode: 'delivery' },
  });
}

export async function startDelivery(deps: Deps, principal: Principal, body: DeliveryBody): Promise<unknown> {
  return answer(deps, await submitDelivery(deps, principal, body), deliveryView);
}

/**
 * Approves or refuses a delivery run at its gate; a run that is not a delivery run is 404, a gate already answered 409.
 */
export async function resumeDelivery(
  deps: Deps,
  principal: Principal,
  runId: string,
  approved: boolean,
): Promise<unknown> {
  const run = await findRun(deps, principal.accountId, runId);
  if (!run.route.includes('delivery')) throw notFound(`Delivery run ${runId}`);
  const resumed = await resumeRun(deps, principal, runId, { approved, action: approved ? 'approve' : 'reject' });
  // An autonomous run keeps the delivery answer of this route, with what the grant covered beside it.
  const view = (r: Obj) =>
    (r.results?.delivery as Obj)?.autonomy ? { ...deliveryView(r), autonomy: autonomyOf(r) } : deliveryView(r);
  return answer(deps, resumed, view);
}

/**
 * A delivery or an environment setup under an explicit autonomy grant; the mode is inferred from the fields when
 * absent.
 */
export async function startAutonomous(deps: Deps, principal: Principal, body: Obj): Promise<unknown> {
  if (body.autonomy !== undefined) {
    throw invalidPayload(
      "An autonomy grant is not taken from the run's body: an approver creates one with POST " +
        '/v1/delivery/autonomy/grants, and the run names it by grantId',
      { path: '/autonomy' },
    );
  }
  const mode = body.mode ?? inferMode(body);
  if (!mode)
    throw invalidPayload('mode cannot be inferred: send service and version (delivery) or files (environment)', [
      { path: '/mode', message: 'required when neither service+version nor files are given', keyword: 'required' },
    ]);
  const { grantId, ...fields } = body;
  if (mode === 'delivery') {
    const delivery = assertValid<DeliveryBody>(DeliveryRun, { ...fields });
    await checkGrant(deps, principal, grantId, delivery.environment);
    return answer(
      deps,
      await submitDelivery(deps, principal, delivery, { autonomyGrantId: grantId }),
      autonomousView('delivery'),
    );
  }
  if (!body.files || typeof body.files !== 'object' || Object.values(body.files).some((v) => typeof v !== 'string')) {
    throw invalidPayload('environment mode needs files (path → contents)', [
      { path: '/files', message: 'must be an object of strings', keyword: 'type' },
    ]);
  }
  await checkGrant(deps, principal, grantId, 'development');
  const run = await submitRun(deps, principal, {
    request: 'set up the development environment',
    domainRoute: ['environment', 'delivery'],
    metadata: { files: body.files, autonomyGrantId: grantId, mode: 'environment' },
  });
  return answer(deps, run, autonomousView('environment'));
}

/** The grant a run is about to name, checked up front for a clear answer (the step checks it again when it acts). */
async function checkGrant(deps: Deps, principal: Principal, grantId: string, environment: string): Promise<void> {
  const row = await getGrant(deps.db, principal.accountId, grantId);
  if (!row) throw notFound(`Autonomy grant ${grantId}`);
  const refusal = await grantRefusal(deps, row, principal.memberId ?? null, environment);
  if (!refusal) return;
  if (refusal.self) throw selfApprovalError(principal.memberId!, 'autonomy');
  throw policyViolation(refusal.message, { reason: 'grantNotUsable', grantId });
}
