import canonicalize from 'canonicalize';
import type { Deps } from '../../shared/deps.js';
import type { Db } from '../../shared/db/knex.js';
import { receiptsOfRun } from './repository.js';
import { getProofPack, insertProofPack, type ProofPackRow } from './packs-repository.js';
import { latestProofCardOfRun } from '../../shared/db/proof-cards.js';
import { getRun, stepsOf } from '../../shared/db/runs.js';
import { publicSigningKey } from '../../shared/db/signing-keys.js';
import { conflict, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import type { Principal } from '../../shared/schemas/auth.js';
import { sign, verifyWithJwk } from '../../shared/signing.js';
import { auditOf, auditView } from '../audit/index.js';
import { buildSections, checkPackHashes, headerOf, packIdForRun, sealHashes, type PackProblem } from './pack-logic.js';
import { receiptView } from './views.js';

/**
 * Seals a pack of the run as it is now and stores it (once per id): the
 * sections, their hashes, the root hash and the service's Ed25519
 * signature over it (the key of /.well-known/jwks.json, named by `kid`).
 * `db` may be the transaction that ends the run.
 */
async function sealRunPack(
  db: Db,
  deps: Pick<Deps, 'config'>,
  accountId: string,
  runId: string,
  packId: string,
): Promise<void> {
  const run = await getRun(db, accountId, runId);
  if (!run) throw notFound(`Run ${runId}`);
  // One after another: `db` may be a transaction, which is one connection.
  const steps = await stepsOf(db, runId);
  const card = await latestProofCardOfRun(db, runId);
  const receipts = await receiptsOfRun(db, accountId, runId);
  const audit = await auditOf(db, accountId, 'run', runId);
  const sections = buildSections({
    run: {
      id: run.id,
      route: run.route,
      status: run.status,
      extensions: (run.routing.extensions as unknown[] | undefined) ?? [],
    },
    steps,
    card: card?.card ?? null,
    receipts: receipts.map(receiptView),
    audit: audit.map(auditView),
  });
  const header = headerOf(packId, runId, new Date().toISOString());
  const { sectionHashes, rootHash } = sealHashes(header, sections);
  const signature = await sign({ db, config: deps.config }, rootHash);
  const seal = {
    hashAlg: 'SHA-256',
    canonicalization: 'RFC8785',
    sectionHashes,
    rootHash,
    alg: signature.alg,
    kid: signature.kid,
    signature: signature.signature,
  };
  await insertProofPack(db, {
    id: packId,
    account_id: accountId,
    run_id: runId,
    document: canonicalize({ ...header, sections, seal })!,
    root_hash: rootHash,
    kid: signature.kid,
  });
}

/** A stored pack as the API shows it: the sealed document, plus where it lives (`shareUrl`, not part of the seal). */
export function packView(row: ProofPackRow, config: Pick<Deps['config'], 'PUBLIC_BASE_URL' | 'PORT'>) {
  const base = (config.PUBLIC_BASE_URL ?? `http://localhost:${config.PORT}`).replace(/\/+$/, '');
  return {
    ...(JSON.parse(row.document) as Record<string, unknown>),
    shareUrl: `${base}/v1/audit/proofPacks/${row.id}`,
  };
}

export async function fetchPack(deps: Pick<Deps, 'db'>, principal: Principal, packId: string): Promise<ProofPackRow> {
  const row = await getProofPack(deps.db, principal.accountId, packId);
  if (!row) throw notFound(`Proof pack ${packId}`);
  return row;
}

/**
 * Seals a new pack of one of the caller's runs (404 otherwise); a run still moving (queued, running) is 409: its
 * evidence is not settled yet.
 */
export async function createPack(deps: Deps, principal: Principal, runId: string): Promise<ProofPackRow> {
  const run = await getRun(deps.db, principal.accountId, runId);
  if (!run) throw notFound(`Run ${runId}`);
  if (run.status === 'queued' || run.status === 'running')
    throw conflict(`Run ${runId} is ${run.status}; a pack seals a run that rests`, { status: run.status });
  const packId = newId('pp');
  await sealRunPack(deps.db, deps, principal.accountId, runId, packId);
  return (await getProofPack(deps.db, principal.accountId, packId))!;
}

/**
 * Part of the transaction that ends a run through pay: a run with receipts
 * gets its pack sealed as it finishes (the id its pay step announced), so
 * the pack exists as soon as the run's end does.
 */
export async function sealFinishedRun(
  trx: Db,
  deps: Pick<Deps, 'config'>,
  run: { runId: string; accountId: string },
): Promise<void> {
  if ((await receiptsOfRun(trx, run.accountId, run.runId)).length === 0) return;
  await sealRunPack(trx, deps, run.accountId, run.runId, packIdForRun(run.runId));
}

/**
 * Checks a pack as submitted, the way a third party would: every hash
 * recomputed from the content, and the signature over the root hash
 * against the published key its `kid` names. `problems` names the section
 * of each mismatch (`header` when the signed root hash is intact but the
 * header around it was changed).
 */
export async function verifyPack(deps: Pick<Deps, 'db'>, pack: Record<string, unknown>) {
  const { problems, rootHash } = checkPackHashes(pack);
  const seal = (pack.seal ?? {}) as { kid?: unknown; signature?: unknown; rootHash?: unknown };
  const jwk = typeof seal.kid === 'string' ? await publicSigningKey(deps.db, seal.kid) : null;
  const signatureValid =
    Boolean(jwk) &&
    typeof seal.rootHash === 'string' &&
    typeof seal.signature === 'string' &&
    verifyWithJwk(jwk!, seal.rootHash, seal.signature);
  const all: PackProblem[] = problems.map((p) =>
    p.problem === 'rootHashMismatch' && signatureValid
      ? {
          ...p,
          section: 'header',
          detail: 'the header (packId, status, cite, runId, sealedAt) or the list of section hashes was changed',
        }
      : p,
  );
  if (!jwk)
    all.push({
      section: 'seal',
      problem: 'unknownKey',
      detail: `kid ${String(seal.kid)} is not a key this service published`,
    });
  else if (!signatureValid)
    all.push({
      section: 'seal',
      problem: 'badSignature',
      detail: 'the signature does not verify over seal.rootHash with the published key',
    });
  return {
    valid: all.length === 0,
    packId: typeof pack.packId === 'string' ? pack.packId : null,
    rootHash: { computed: rootHash, sealed: typeof seal.rootHash === 'string' ? seal.rootHash : null },
    signature: {
      kid: typeof seal.kid === 'string' ? seal.kid : null,
      keyPublished: Boolean(jwk),
      valid: signatureValid,
    },
    invalidSections: [...new Set(all.map((p) => p.section))],
    problems: all,
  };
}
