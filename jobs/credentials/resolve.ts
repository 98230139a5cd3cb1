import type { Deps } from '../../shared/deps.js';
import { AppError } from '../../shared/errors.js';
import { parseSecretRef, requireSecret, resolveSecret, type SecretRef } from '../../shared/secrets.js';
import { open } from '../../shared/vault/index.js';
import { isOAuth, presented, unsealed, type Material, type Obj } from './logic.js';
import { accessToken } from './oauth.js';
import { recordAudit } from '../audit/index.js';
import { getCredential, liveVersions, sealedVersion, touchCredential } from './repository.js';
import type { CredentialKind } from './schemas.js';

/**
 * References resolved on the server: `cred:` inside the acting account's
 * vault only; `env:` only where the caller says env is allowed (platform
 * connectors). A `cred:` reference that is missing, another account's,
 * disabled or pinned to an expired version fails with one and the same
 * error, so the answer never says whether some other account has it.
 */

type ResolveDeps = Pick<Deps, 'db' | 'config' | 'redis'>;

export interface RefContext {
  /** The account the reference is resolved in: the caller's. */
  accountId: string;
  /** env: references admitted (a platform connector). */
  allowEnv: boolean;
  /** Operators (admin scope) may learn whether an env: variable is set; tenants never. */
  operator?: boolean;
  /** Who is resolving, for the audit entry (absent for the service's own workers). */
  actor?: { memberId?: string | null; tokenId?: string | null };
  /** What the value is resolved for (`bridge.action`, `portal.action`, `tools.map`), for the audit entry. */
  via?: string;
}

export function unavailable(ref: string): AppError {
  return new AppError(
    'policyViolation',
    `${ref} is not available in this account (no such credential, disabled, or version expired)`,
    {
      problem: 'credentialUnavailable',
      ref,
    },
  );
}

async function usable(deps: Pick<Deps, 'db'>, accountId: string, ref: SecretRef) {
  const cred = await getCredential(deps.db, accountId, ref.name);
  if (!cred || cred.status !== 'active') return null;
  const version = ref.version ?? cred.current_version;
  const sealed = await sealedVersion(deps.db, cred.id, version);
  return sealed ? { cred, version, sealed } : null;
}

/** The text a `cred:` reference stands for (an access token for OAuth2 kinds), or the shared unavailable error. */
export async function resolveCredential(deps: ResolveDeps, ctx: RefContext, ref: SecretRef): Promise<string> {
  const found = await usable(deps, ctx.accountId, ref);
  if (!found) throw unavailable(ref.ref);
  const kind = found.cred.kind as CredentialKind;
  const material: Material = unsealed(kind, await open(deps, found.sealed));
  const value = isOAuth(kind)
    ? await accessToken(deps, found.cred, found.version, material as Obj)
    : presented(kind, material);
  await touchCredential(deps.db, found.cred.id);
  await recordAudit(deps.db, {
    accountId: ctx.accountId,
    memberId: ctx.actor?.memberId ?? null,
    tokenId: ctx.actor?.tokenId ?? null,
    action: 'credential.resolved',
    resourceType: 'credential',
    resourceId: found.cred.id,
    details: { name: found.cred.name, version: found.version, ...(ctx.via ? { via: ctx.via } : {}) },
  });
  return value;
}

/** Any reference to the text it stands for; throws (422) when out of bounds, unset or unavailable. */
export async function resolveReference(deps: ResolveDeps, ctx: RefContext, value: string): Promise<string> {
  const ref = parseSecretRef(value, { prefix: deps.config.SECRET_ENV_PREFIX, allowEnv: ctx.allowEnv });
  if (ref.scheme === 'cred') return resolveCredential(deps, ctx, ref);
  try {
    return requireSecret(value, { prefix: deps.config.SECRET_ENV_PREFIX });
  } catch (err) {
    // A tenant using a platform connector is not told which server variable is missing.
    if (ctx.operator) throw err;
    throw new AppError(
      'policyViolation',
      'a platform credential of this connector is not available; ask the operator',
      { problem: 'platformCredential' },
    );
  }
}

export interface RefState {
  ref: string;
  /** The env variable (operators only) or the credential name; '' when not to be shown. */
  variable: string;
  set: boolean;
  refused?: string;
}

/**
 * Whether each reference would resolve now, without reading a value:
 * `cred:` ones against the account's vault; `env:` ones against the
 * environment for operators only. A tenant is told an env reference (on a
 * platform connector) is operator-managed, reported as set, never whether it is.
 */
export async function referenceStates(
  deps: Pick<Deps, 'db' | 'config'>,
  ctx: RefContext,
  refs: string[],
): Promise<RefState[]> {
  const prefix = deps.config.SECRET_ENV_PREFIX;
  const out: RefState[] = [];
  for (const value of refs) {
    let ref: SecretRef;
    try {
      ref = parseSecretRef(value, { prefix, allowEnv: ctx.allowEnv });
    } catch (err) {
      out.push({ ref: value, variable: '', set: false, refused: (err as Error).message });
      continue;
    }
    if (ref.scheme === 'cred')
      out.push({ ref: ref.ref, variable: ref.name, set: Boolean(await usable(deps, ctx.accountId, ref)) });
    else if (ctx.operator) out.push({ ref: ref.ref, variable: ref.name, set: resolveSecret(value, { prefix }).set });
    else out.push({ ref: ref.ref, variable: '', set: true });
  }
  return out;
}

/** The versions of credentials still usable, for the views. */
export { liveVersions };
