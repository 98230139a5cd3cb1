import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { loadConfig } from '../../shared/config.js';
import { createDb, type Knex } from '../../shared/db/knex.js';
import { migrateLatest } from '../../shared/db/migrate.js';
import { currentSigningKey, jwks, keyFromSeed, rotateSigningKey, sign, verify } from '../../shared/signing.js';
import { startExtraApp } from '../support/extra-app.js';
import { harness } from '../support/harness.js';
import { freshDatabase } from '../support/services.js';
import { spawnEntry } from '../support/spawn.js';

// The run's master key: a generated key's private half is stored sealed (shared/vault).
const noEnvKey = {
  SIGNING_KEY: undefined,
  get AWP_MASTER_KEY() {
    return harness.config.AWP_MASTER_KEY;
  },
};

/** An Ed25519 key made here, independently of the service: its seed in SIGNING_KEY form, and its public key. */
function outsideKey() {
  const { privateKey, publicKey } = crypto.generateKeyPairSync('ed25519');
  const { d, x } = privateKey.export({ format: 'jwk' }) as { d: string; x: string };
  return { seed: Buffer.from(d, 'base64url').toString('base64'), x, publicKey };
}

async function exitOf(child: ReturnType<typeof spawnEntry>): Promise<number | null> {
  return child.exitCode ?? new Promise((r) => child.once('exit', r));
}

// Its own database: these tests need an empty signing_keys table and switch keys the shared harness must not see.
describe('the signing key: one per service, rotated, or from SIGNING_KEY', () => {
  let fresh: Awaited<ReturnType<typeof freshDatabase>>;
  let db: Knex;
  before(async function () {
    this.timeout(60_000);
    fresh = await freshDatabase(harness.services.databaseUrl);
    db = createDb(fresh.url);
    await migrateLatest(db);
  });
  after(async () => {
    await db?.destroy();
    await fresh?.drop();
  });

  it('processes starting together agree on one generated key', async () => {
    // Separate pools stand for separate processes; each asks several times at once.
    const pools = [createDb(fresh.url), createDb(fresh.url), createDb(fresh.url)];
    try {
      const keys = await Promise.all(
        pools.flatMap((p) => [1, 2, 3].map(() => currentSigningKey({ db: p, config: noEnvKey }))),
      );
      assert.equal(new Set(keys.map((k) => k.kid)).size, 1);
      const rows = await db('signing_keys').select('kid', 'source', 'retired_at');
      assert.deepEqual(rows, [{ kid: keys[0]!.kid, source: 'generated', retired_at: null }]);
    } finally {
      await Promise.all(pools.map((p) => p.destroy()));
    }
  });

  it('rotation makes a new current key and keeps the old one published; old signatures still verify', async () => {
    const deps = { db, config: noEnvKey };
    const before = await sign(deps, 'pack one');
    const rotated = await rotateSigningKey(deps);
    assert.notEqual(rotated.kid, before.kid);
    const after = await sign(deps, 'pack two');
    assert.equal(after.kid, rotated.kid);
    const set = await jwks(deps);
    assert.deepEqual(
      set.keys.map((k) => k.kid),
      [rotated.kid, before.kid],
    );
    assert.equal(await verify(deps, 'pack one', before), true);
    assert.equal(await verify(deps, 'pack two', after), true);
    assert.equal(await verify(deps, 'pack two', { kid: before.kid, signature: after.signature }), false);
    assert.equal(await verify(deps, 'pack one', { kid: 'unknown', signature: before.signature }), false);
  });

  it('npm run signing-key:rotate rotates from the command line and prints only the public key', async () => {
    const previous = (await jwks({ db, config: noEnvKey })).keys;
    const child = spawnEntry('scripts/rotate-signing-key.ts', { DATABASE_URL: fresh.url, SIGNING_KEY: '' });
    assert.equal(await exitOf(child), 0, child.output());
    const printed = JSON.parse(child.output().trim().split('\n').pop()!);
    assert.deepEqual(Object.keys(printed.jwk).sort(), ['alg', 'crv', 'kid', 'kty', 'use', 'x']);
    const now = (await jwks({ db, config: noEnvKey })).keys.map((k) => k.kid);
    assert.deepEqual(now, [printed.kid, ...previous.map((k) => k.kid)]);
  });

  it('SIGNING_KEY, when set, is the key: published first, used to sign, earlier keys still listed', async () => {
    const own = outsideKey();
    const earlier = (await jwks({ db, config: noEnvKey })).keys.map((k) => k.kid);
    const app = await startExtraApp({ DATABASE_URL: fresh.url, SIGNING_KEY: own.seed });
    try {
      const res = await fetch(`${app.url}/.well-known/jwks.json`);
      const text = await res.text();
      const set = JSON.parse(text) as { keys: Array<{ kid: string; x: string }> };
      assert.equal(set.keys[0]!.x, own.x);
      assert.deepEqual(
        set.keys.slice(1).map((k) => k.kid),
        earlier,
      );
      assert.ok(!text.includes(own.seed) && !text.includes(Buffer.from(own.seed, 'base64').toString('base64url')));
      const bytes = Buffer.from('signed with the configured key');
      const sig = await sign(app.deps, bytes);
      assert.equal(sig.kid, set.keys[0]!.kid);
      assert.equal(crypto.verify(null, bytes, own.publicKey, Buffer.from(sig.signature, 'base64url')), true);
      const row = await db('signing_keys').where({ kid: sig.kid }).first();
      // only its public half is stored
      assert.deepEqual([row.source, row.private_key, row.retired_at], ['config', null, null]);
      await assert.rejects(rotateSigningKey(app.deps), /SIGNING_KEY is set/);
    } finally {
      await app.stop();
    }
    // Unset again: a stored key takes over (a new one, as the configured one's private half was never stored); the
    // configured one stays listed.
    const back = await currentSigningKey({ db, config: noEnvKey });
    const listed = (await jwks({ db, config: noEnvKey })).keys.map((k) => k.kid);
    assert.equal(listed[0], back.kid);
    assert.ok(listed.includes((await db('signing_keys').where({ source: 'config' }).first()).kid));
  });

  it('a bad SIGNING_KEY stops the process at configuration time without printing it', () => {
    const bad = [
      'not base64 at all',
      Buffer.alloc(31, 7).toString('base64'),
      Buffer.alloc(33, 7).toString('base64'),
      `${outsideKey().seed.slice(0, -1)}`,
    ];
    for (const value of bad) {
      assert.throws(
        () => loadConfig({ SIGNING_KEY: value }),
        (err: Error) => /SIGNING_KEY/.test(err.message) && !err.message.includes(value),
      );
      assert.throws(
        () => keyFromSeed(value),
        (err: Error) => /base64 of a 32-byte Ed25519 seed/.test(err.message) && !err.message.includes(value),
      );
    }
    assert.doesNotThrow(() => keyFromSeed(outsideKey().seed));
  });
});
