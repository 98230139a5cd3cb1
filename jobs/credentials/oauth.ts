import { randomBytes } from 'node:crypto';
import type { Deps } from '../../shared/deps.js';
import { AppError } from '../../shared/errors.js';
import { egressFailureReason, egressFetch } from '../../shared/http/egress.js';
import { redactSecrets, rememberSecret } from '../../shared/secrets.js';
import { open, seal } from '../../shared/vault/index.js';
import { cacheSeconds, parseTokenAnswer, sealable, tokenRequest, type Obj } from './logic.js';
import { replaceVersionValue, type CredentialRow } from './repository.js';

/**
 * OAuth2 access tokens of vault credentials: fetched from the credential's
 * token endpoint through the egress client, cached in Redis until shortly
 * before they expire (sealed under the account's data key, so Redis holds
 * no plaintext token either), and fetched once across processes: a Redis
 * lock elects one fetcher, the others wait for its token. A token is only
 * ever put in a header of a call the service makes; no answer carries it.
 */

type OAuthDeps = Pick<Deps, 'db' | 'config' | 'redis'>;
const LOCK_MS = 15_000;
const WAIT_STEP_MS = 100;
const RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";

const keys = (deps: OAuthDeps, cred: CredentialRow, version: number) => {
  const base = `${deps.config.QUEUE_PREFIX}:vault:oauth:${cred.id}:${version}`;
  return { token: `${base}:token`, lock: `${base}:lock` };
};

export function tokenFailure(name: string, why: string): AppError {
  return new AppError('policyViolation', `cred:${name}: no access token: ${why}`, {
    problem: 'tokenEndpoint',
    ref: `cred:${name}`,
  });
}

async function cached(deps: OAuthDeps, key: string): Promise<string | null> {
  const sealed = await deps.redis.get(key);
  return sealed ? open(deps, sealed) : null;
}

async function fetchToken(
  deps: OAuthDeps,
  cred: CredentialRow,
  version: number,
  material: Obj,
): Promise<{ token: string; expiresIn: number }> {
  const kind = cred.kind as 'oauth2ClientCredentials' | 'oauth2RefreshToken';
  let res;
  try {
    res = await egressFetch(deps.config.AWP_ALLOW_PRIVATE_EGRESS, String(material.tokenUrl), {
      method: 'POST',
      body: tokenRequest(kind, material),
      timeoutMs: deps.config.BRIDGE_ACTION_TIMEOUT_MS,
      maxBytes: 64 * 1024,
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
        'user-agent': 'awp-vault/0.1',
      },
    });
  } catch (err) {
    throw tokenFailure(cred.name, redactSecrets(egressFailureReason(err)));
  }
  const answer = parseTokenAnswer(res.status, res.text);
  // The answer is never repeated: it may carry the token, or echo the client secret.
  if (!answer) throw tokenFailure(cred.name, `the token endpoint answered HTTP ${res.status} without an access_token`);
  if (answer.refreshToken && kind === 'oauth2RefreshToken' && answer.refreshToken !== material.refreshToken) {
    const next = await seal(deps, cred.account_id, sealable({ ...material, refreshToken: answer.refreshToken }));
    await replaceVersionValue(deps.db, cred.id, version, next);
  }
  return { token: answer.accessToken, expiresIn: answer.expiresIn };
}

/** The credential's access token: the cached one, or one fetched now by exactly one process. */
export async function accessToken(
  deps: OAuthDeps,
  cred: CredentialRow,
  version: number,
  material: Obj,
): Promise<string> {
  const k = keys(deps, cred, version);
  const deadline = Date.now() + LOCK_MS * 2;
  while (Date.now() < deadline) {
    const hit = await cached(deps, k.token);
    if (hit) return hit;
    const owner = randomBytes(12).toString('hex');
    if (await deps.redis.set(k.lock, owner, 'PX', LOCK_MS, 'NX')) {
      try {
        const again = await cached(deps, k.token); // filled between our read and our lock
        if (again) return again;
        const fresh = await fetchToken(deps, cred, version, material);
        rememberSecret(fresh.token);
        await deps.redis.set(
          k.token,
          await seal(deps, cred.account_id, fresh.token),
          'EX',
          cacheSeconds(fresh.expiresIn),
        );
        return fresh.token;
      } finally {
        await deps.redis.eval(RELEASE, 1, k.lock, owner);
      }
    }
    await new Promise((resolve) => setTimeout(resolve, WAIT_STEP_MS));
  }
  throw tokenFailure(cred.name, 'another process holds the refresh lock and produced no token in time');
}
