import canonicalize from 'canonicalize';
import { randomUUID } from 'node:crypto';
import { sha256 } from '../../shared/crypto.js';
import type { Deps } from '../../shared/deps.js';
import {
  abandonIdempotent,
  finishIdempotent,
  forgetStaleIdempotency,
  getIdempotency,
  insertIdempotencyClaim,
  renewIdempotencyClaim,
} from '../../shared/db/idempotency.js';
import { AppError, conflict, invalidPayload } from '../../shared/errors.js';
import type { Principal } from '../../shared/schemas/auth.js';

/**
 * Idempotency-Key replay. Keys are per account; the first request with a key
 * claims it and its answer replays for IDEMPOTENCY_TTL_HOURS, to the same
 * token only (another token's replay would hand it a response it may not be
 * entitled to). The claim is a lease of IDEMPOTENCY_LEASE_SECONDS that the
 * running request renews, so a request whose process died frees its key
 * after the lease instead of after the TTL. A response that carried a secret
 * is never stored: its replay is 409 saying the secret was shown once.
 */

/**
 * The request a key was first used for: method, path and the body as canonical JSON (RFC 8785), so key order and
 * spacing do not matter.
 */
export function requestFingerprint(method: string, path: string, body: unknown): string {
  let canonical: string | undefined;
  try {
    canonical = canonicalize(body ?? {});
  } catch {
    // Only a body nested past the stack's depth gets here: bad input, not a server fault.
    throw invalidPayload('The request body nests too deeply to be compared for Idempotency-Key replay');
  }
  return sha256(`${method} ${path}\n${canonical ?? ''}`);
}

export interface IdempotencyClaim {
  /** Keeps the claim alive while the request runs; call `stop` when it ends. */
  keepAlive(): { stop(): void };
  /** Records the answer for replay; with `returnsSecret` only its status is kept. */
  finish(
    answer: { status: number; body: unknown; headers: Record<string, string> },
    returnsSecret: boolean,
  ): Promise<void>;
  /** Frees the key (the request failed, or streamed): a retry with it runs again. */
  release(): Promise<void>;
}

export type IdempotencyStart =
  | { kind: 'new'; claim: IdempotencyClaim }
  | { kind: 'replay'; status: number; body: unknown; headers: Record<string, string> };

const REPLAYED = { 'Idempotent-Replayed': 'true' };

/**
 * Claims `key` for this request, or answers what its first request did:
 * a replay, or 409 (another token's key, a different request, still
 * running, or a secret that was shown once).
 */
export async function claimIdempotencyKey(
  deps: Pick<Deps, 'db' | 'config' | 'log'>,
  principal: Principal,
  key: string,
  fingerprint: string,
): Promise<IdempotencyStart> {
  const { db, config } = deps;
  const lease = config.IDEMPOTENCY_LEASE_SECONDS;
  const claimId = randomUUID();
  // Two rounds: a row found stale or gone between insert and read is claimable once more.
  for (let round = 0; round < 2; round++) {
    await forgetStaleIdempotency(db, principal.accountId, key, config.IDEMPOTENCY_TTL_HOURS, lease);
    if (
      await insertIdempotencyClaim(db, {
        accountId: principal.accountId,
        key,
        tokenId: principal.tokenId,
        requestHash: fingerprint,
        claimId,
        leaseSeconds: lease,
      })
    ) {
      return { kind: 'new', claim: claimHandle(deps, principal.accountId, key, claimId) };
    }
    const row = await getIdempotency(db, principal.accountId, key);
    if (!row) continue;
    if (row.token_id !== principal.tokenId)
      throw conflict('Idempotency-Key was already used by another token of this account; use a key of your own');
    if (row.request_hash !== fingerprint) throw conflict('Idempotency-Key was already used with a different request');
    if (row.status_code == null) throw conflict('A request with this Idempotency-Key is still in progress');
    if (row.secret_withheld) {
      throw new AppError(
        'conflict',
        "The first request with this Idempotency-Key succeeded; this route's response carries a secret, " +
          'which is shown once and never stored, so it is not replayed',
        { reason: 'secretShownOnce', firstStatus: row.status_code },
        REPLAYED,
      );
    }
    return {
      kind: 'replay',
      status: row.status_code,
      body: row.response_body,
      headers: { ...(row.response_headers ?? {}), ...REPLAYED },
    };
  }
  throw conflict('A request with this Idempotency-Key is still in progress');
}

// Secrets the service mints (API tokens, webhook signing secrets, activation tokens): a net under the
// route's returnsSecret mark, so a route that forgot it still never stores one.
const MINTED_SECRET = /\b(?:awp|whsec|act)_[A-Za-z0-9_+/-]{20,}/;

function claimHandle(
  deps: Pick<Deps, 'db' | 'config' | 'log'>,
  accountId: string,
  key: string,
  claimId: string,
): IdempotencyClaim {
  const lease = deps.config.IDEMPOTENCY_LEASE_SECONDS;
  return {
    keepAlive() {
      // Renewed at a third of the lease, so one slow renewal does not let the claim lapse.
      const timer = setInterval(
        () => {
          renewIdempotencyClaim(deps.db, accountId, key, claimId, lease).catch((err: Error) =>
            deps.log.warn({ err: err.message }, 'idempotency claim renewal failed'),
          );
        },
        (lease * 1000) / 3,
      );
      timer.unref();
      return { stop: () => clearInterval(timer) };
    },
    finish(answer, returnsSecret) {
      const unmarked = !returnsSecret && MINTED_SECRET.test(JSON.stringify(answer.body) ?? '');
      if (unmarked)
        deps.log.warn(
          { status: answer.status },
          'a response carrying a secret came from a route without returnsSecret; not stored',
        );
      return finishIdempotent(
        deps.db,
        accountId,
        key,
        claimId,
        returnsSecret || unmarked ? { status: answer.status, secretWithheld: true } : answer,
      );
    },
    release: () => abandonIdempotent(deps.db, accountId, key, claimId),
  };
}
