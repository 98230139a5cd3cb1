import { randomBytes } from 'node:crypto';
import type { Deps } from '../../shared/deps.js';
import { insertSandboxAccount } from '../accounts/index.js';
import { unauthorized } from '../../shared/errors.js';
import { sign, verify } from '../../shared/signing.js';
import { insertListings } from '../hunt/index.js';
import type { Principal } from '../../shared/schemas/auth.js';
import { DEFAULT_SCOPES } from '../../shared/schemas/auth.js';

export const SANDBOX_ACCOUNT = 'acct_sandbox';
export const SANDBOX_PREFIX = 'sandbox_';

/** Deterministic demo listings every sandbox run searches. */
const SANDBOX_LISTINGS = [
  {
    title: 'Espresso machine Classic 15 bar',
    price: 189,
    fees: 12,
    vendor: 'Brewhouse',
    url: 'https://sandbox.awp.local/brewhouse/classic',
    tags: ['coffee', 'espresso', 'kitchen'],
  },
  {
    title: 'Espresso machine Compact',
    price: 149,
    fees: 0,
    vendor: 'CafeCo',
    url: 'https://sandbox.awp.local/cafeco/compact',
    tags: ['coffee', 'espresso'],
  },
  {
    title: 'Espresso machine Pro dual boiler',
    price: 899,
    fees: 40,
    vendor: 'Brewhouse',
    url: 'https://sandbox.awp.local/brewhouse/pro',
    tags: ['coffee', 'espresso'],
  },
  {
    title: 'Road bike aluminium 56 cm',
    price: 380,
    fees: 25,
    vendor: 'CycleHub',
    url: 'https://sandbox.awp.local/cyclehub/road56',
    tags: ['bike', 'road'],
  },
  { title: 'Standing desk electric 140x70', price: 279, fees: 30, vendor: 'DeskWorks', tags: ['desk', 'office'] },
  {
    title: 'Noise cancelling headphones',
    price: 199,
    fees: 0,
    vendor: 'SoundLab',
    url: 'https://sandbox.awp.local/soundlab/nc',
    tags: ['audio', 'headphones'],
  },
];

export function isSandboxBody(body: unknown): boolean {
  const id = (body as { conversationId?: unknown } | undefined)?.conversationId;
  return typeof id === 'string' && id.startsWith(SANDBOX_PREFIX);
}

/**
 * Sessions this process has already seeded, so a busy session costs no write per request (bounded: the oldest are
 * forgotten).
 */
const seeded = new Set<string>();
const SEEDED_MAX = 10_000;

const SESSION = /^([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{1,100})\.([A-Za-z0-9_-]{40,200})$/;

/**
 * The principal of a sandbox caller (no token, a `sandbox_` conversation).
 * Each caller gets a session of its own on first use: an account with the
 * seeded demo catalog, so one caller's conversations, runs and
 * Idempotency-Keys are never another's. The session id is returned signed
 * (`X-Sandbox-Session: <id>.<kid>.<Ed25519 signature>`, the service key of
 * /.well-known/jwks.json); sending it back continues the session, and a
 * session id the service did not sign is 401.
 */
export async function sandboxSession(
  deps: Pick<Deps, 'db' | 'config'>,
  header: string | undefined,
): Promise<{ principal: Principal; session: string }> {
  let sid: string;
  let session: string;
  if (header) {
    const m = SESSION.exec(header.trim());
    if (!m || !(await verify(deps, `sandbox:${m[1]}`, { kid: m[2]!, signature: m[3]! })))
      throw unauthorized('X-Sandbox-Session is not a sandbox session this service issued; omit it to start a new one');
    sid = m[1]!;
    session = header.trim();
  } else {
    sid = randomBytes(16).toString('base64url');
    const sig = await sign(deps, `sandbox:${sid}`);
    session = `${sid}.${sig.kid}.${sig.signature}`;
  }
  const accountId = `${SANDBOX_ACCOUNT}_${sid}`;
  if (!seeded.has(accountId)) {
    await deps.db.transaction(async (trx) => {
      if (await insertSandboxAccount(trx, accountId))
        await insertListings(
          trx,
          accountId,
          SANDBOX_LISTINGS.map((l) => ({ currency: 'USD', ...l })),
        );
    });
    if (seeded.size >= SEEDED_MAX) seeded.clear();
    seeded.add(accountId);
  }
  return {
    principal: { accountId, tokenId: `sandbox:${sid}`, scopes: DEFAULT_SCOPES, plan: 'team', activated: true },
    session,
  };
}
