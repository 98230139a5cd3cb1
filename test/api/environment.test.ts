import assert from 'node:assert/strict';
import { harness } from '../support/harness.js';
import { PROJECTS } from '../support/project-fixtures.js';

const configure = (token: string | undefined, body: unknown) =>
  harness.call('POST', '/v1/environment/configure', { token, body });
const byName = (list: Array<{ name: string }>): Record<string, any> => Object.fromEntries(list.map((x) => [x.name, x]));

describe('environment: POST /v1/environment/configure', () => {
  let a: { token: string };
  before(async () => {
    a = await harness.account();
  });

  it(
    'node: engines and .nvmrc, npm from its lockfile, postgres and redis from compose and client libraries, ' +
      'secrets from .env.example',
    async () => {
      const res = await configure(a.token, { files: PROJECTS.node, repoUrl: 'https://git.example/shop' });
      assert.equal(res.status, 200, res.text);
      const r = res.body;
      assert.equal(byName(r.runtimes).node.version, '20.11.1', 'the exact pin wins over the engines range');
      assert.deepEqual(
        r.packageManagers.map((m: any) => [m.name, m.lockfile]),
        [['npm', 'package-lock.json']],
      );
      const services = byName(r.services);
      assert.deepEqual(Object.keys(services).sort(), ['postgres', 'redis']);
      assert.equal(services.postgres.version, '16');
      assert.ok(services.redis.evidence.some((e: any) => e.kind === 'clientLibrary' && e.detail === 'ioredis'));
      const secrets = byName(r.secrets);
      assert.equal(secrets.STRIPE_API_KEY.needsValue, true);
      assert.equal(secrets.JWT_SECRET.needsValue, true, 'changeme is a placeholder');
      assert.equal(secrets.POSTGRES_PASSWORD.needsValue, true, 'read from the shell in compose');
      assert.equal(secrets.PORT, undefined, 'a setting is not a secret');
      assert.deepEqual(
        r.setupSteps.map((s: any) => s.action),
        [
          'installRuntime',
          'startServices',
          'provideSecrets',
          'installDependencies',
          'runScript',
          'runScript',
          'runScript',
        ],
      );
      assert.equal(
        r.setupSteps.find((s: any) => s.action === 'startServices').command,
        'docker compose -f docker-compose.yml up -d db cache',
      );
      assert.deepEqual(
        r.setupSteps.filter((s: any) => s.action === 'runScript').map((s: any) => s.command),
        ['npm run migrate', 'npm run build', 'npm run test'],
      );
      assert.equal(r.readiness, 'needsInput');
      assert.ok(r.reasons.some((x: string) => x.includes('STRIPE_API_KEY')));
      assert.equal(r.executed, false);
    },
  );

  it('python, go, rust, ruby and java projects: runtime versions, package managers and services', async () => {
    const expect: Record<
      string,
      { runtime: [string, string]; manager: string; services: string[]; readiness: string }
    > = {
      python: { runtime: ['python', '3.11.8'], manager: 'poetry', services: ['postgres', 'redis'], readiness: 'ready' },
      go: { runtime: ['go', '1.22'], manager: 'go modules', services: ['postgres', 'redis'], readiness: 'ready' },
      rust: { runtime: ['rust', '1.75'], manager: 'cargo', services: ['postgres'], readiness: 'ready' },
      ruby: {
        runtime: ['ruby', '3.2.2'],
        manager: 'bundler',
        services: ['postgres', 'redis'],
        readiness: 'needsInput',
      },
      java: { runtime: ['java', '17'], manager: 'maven', services: ['postgres'], readiness: 'ready' },
    };
    for (const [name, want] of Object.entries(expect)) {
      const res = await configure(a.token, { files: PROJECTS[name] });
      assert.equal(res.status, 200, res.text);
      const r = res.body;
      assert.equal(
        byName(r.runtimes)[want.runtime[0]]?.version,
        want.runtime[1],
        `${name}: ${JSON.stringify(r.runtimes)}`,
      );
      assert.equal(r.packageManagers[0].name, want.manager, name);
      assert.deepEqual(r.services.map((s: any) => s.name).sort(), want.services, name);
      assert.equal(r.readiness, want.readiness, `${name}: ${r.reasons.join('; ')}`);
    }
    const ruby = (await configure(a.token, { files: PROJECTS.ruby })).body;
    assert.deepEqual(
      ruby.secrets.map((s: any) => s.name),
      ['SECRET_KEY_BASE'],
    );
  });

  it(
    'blocked: a manifest that does not parse, runtime ' + 'pins that disagree; needsInput: nothing recognizable',
    async () => {
      const broken = await configure(a.token, {
        files: { 'pyproject.toml': '[project\nname = ', 'docker-compose.yml': 'services: [unclosed' },
      });
      assert.equal(broken.status, 200);
      assert.equal(broken.body.readiness, 'blocked');
      assert.ok(
        broken.body.reasons.some((x: string) => x.startsWith('pyproject.toml is not valid TOML')),
        broken.text,
      );
      assert.ok(
        broken.body.reasons.some((x: string) => x.startsWith('docker-compose.yml is not valid YAML')),
        broken.text,
      );
      const clash = await configure(a.token, {
        files: { '.nvmrc': '18', Dockerfile: 'FROM node:20-alpine\n', 'package.json': '{}' },
      });
      assert.equal(clash.body.readiness, 'blocked');
      assert.match(clash.body.reasons[0], /node versions disagree: 18 \(\.nvmrc\) vs 20/);
      const nothing = await configure(a.token, { files: { 'README.md': '# hi' } });
      assert.equal(nothing.body.readiness, 'needsInput');
      assert.equal(nothing.body.setupSteps.length, 0);
    },
  );

  it('400 without files or with non-string contents, 401 without a token', async () => {
    assert.equal((await configure(a.token, {})).status, 400);
    assert.equal((await configure(a.token, { files: { 'a.json': 5 } })).status, 400);
    assert.equal((await configure(undefined, { files: {} })).status, 401);
  });
});
