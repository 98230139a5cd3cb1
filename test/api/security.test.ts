import assert from 'node:assert/strict';
import { crmConnector } from '../support/bridge.js';
import { harness, type ApiResponse } from '../support/harness.js';
import { plantedRepo, random } from '../support/planted-secrets.js';
import { DEFAULT_SCOPES } from '../../shared/schemas/auth.js';

const WORKFLOW = `name: triage
on:
  pull_request_target:
  issues:
jobs:
  triage:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
        with:
          ref: \${{ github.event.pull_request.head.sha }}
      - name: greet
        run: |
          echo "thanks for #\${{ github.event.issue.number }}"
          echo "\${{ github.event.issue.title }}"
      - uses: actions/github-script@v7
        with:
          script: console.log("\${{ github.event.comment.body }}")
`;

const SAFE_WORKFLOW = `on: pull_request
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - env:
          TITLE: \${{ github.event.pull_request.title }}
        run: echo "$TITLE"
`;

describe('POST /v1/security/validate', () => {
  let token: string;
  before(async () => {
    ({ token } = await harness.account());
  });
  const scan = (body: unknown, t: string | null = token) =>
    harness.call('POST', '/v1/security/validate', { token: t ?? undefined, body });

  it(
    'finds every planted secret (generated now, twelve kinds) at its file and line, reports no decoy, and ' +
      'never shows a value',
    async () => {
      const { files, planted, decoyValues } = plantedRepo();
      const res = await scan({ files });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.verdict, 'block');
      const secrets = res.body.findings.filter((f: any) => f.category === 'secret');
      assert.ok(new Set(planted.map((p) => p.kind)).size >= 10);
      for (const p of planted) {
        const hit = secrets.find((f: any) => f.kind === p.kind && f.file === p.file && f.line === p.line);
        assert.ok(
          hit,
          `${p.kind} at ${p.file}:${p.line}; found ` +
            `${JSON.stringify(secrets.map((f: any) => [f.kind, f.file, f.line]))}`,
        );
        assert.equal(hit.severity, 'error');
        assert.equal(hit.evidence.length, p.value.length);
        assert.ok(p.value.startsWith(hit.evidence.prefix) && hit.evidence.prefix.length <= 4);
      }
      assert.equal(secrets.length, planted.length, 'nothing else is reported: no decoy');
      assert.deepEqual(res.body.suppressed, { placeholder: 7, fixture: 2, reference: 2 });
      for (const value of [...planted.map((p) => p.value), ...decoyValues])
        assert.ok(!res.text.includes(value), 'no value in the answer');
      assert.ok(
        !res.text.includes(planted.find((p) => p.kind === 'privateKey')!.value.split('\n')[1]!),
        'not a line of the key either',
      );
      assert.deepEqual([res.body.scanned.files, res.body.scanErrors], [Object.keys(files).length, []]);
      assert.ok(
        res.body.rules.ruleIds.includes('@secretlint/secretlint-rule-aws') &&
          res.body.rules.ruleIds.includes('awp/generic-high-entropy'),
      );
    },
  );

  it('a test-mode Stripe key and an expired token warn; clean files pass', async () => {
    const header = Buffer.from('{"alg":"HS256"}').toString('base64url');
    const claims = Buffer.from(JSON.stringify({ sub: 'x', exp: 1_600_000_000 })).toString('base64url');
    const expired = `${header}.${claims}.${random(43)}`;
    const res = await scan({
      files: { 'billing.ts': `const key = "sk_test_${random(32)}";\nconst old = "${expired}";\n` },
    });
    assert.equal(res.body.verdict, 'warn');
    assert.deepEqual(
      res.body.findings.map((f: any) => [f.kind, f.severity, f.line]),
      [
        ['stripeKey', 'warning', 1],
        ['jwt', 'warning', 2],
      ],
    );
    assert.match(res.body.findings[1].message, /expired/);
    const clean = await scan({
      files: {
        'README.md': '# hello\nSet API_KEY=env:AWP_SECRET_API_KEY before starting.\n',
        Dockerfile: 'FROM node:20.19-slim\nUSER node\n',
        '.github/workflows/test.yml': SAFE_WORKFLOW,
      },
    });
    assert.deepEqual([clean.body.verdict, clean.body.findings], ['pass', []]);
  });

  it(
    'config checks: a Dockerfile running as root from latest; a workflow pasting event text into scripts and ' +
      "running a pull request's head with secrets",
    async () => {
      const res = await scan({
        files: {
          Dockerfile: 'FROM node:20 AS build\nRUN npm ci\nFROM nginx\nCOPY --from=build /app /srv\n',
          'docker/api.Dockerfile': 'FROM node:latest\nUSER root\n',
          '.github/workflows/triage.yml': WORKFLOW,
        },
      });
      assert.equal(res.body.verdict, 'block');
      assert.deepEqual(
        res.body.findings.map((f: any) => [f.category, f.kind, f.file, f.line, f.severity]),
        [
          ['config', 'actionsPullRequestTargetCheckout', '.github/workflows/triage.yml', 11, 'error'],
          ['config', 'actionsScriptInjection', '.github/workflows/triage.yml', 15, 'error'],
          ['config', 'actionsScriptInjection', '.github/workflows/triage.yml', 18, 'error'],
          ['config', 'dockerfileLatestTag', 'docker/api.Dockerfile', 1, 'warning'],
          ['config', 'dockerfileRootUser', 'docker/api.Dockerfile', 2, 'warning'],
          ['config', 'dockerfileLatestTag', 'Dockerfile', 3, 'warning'],
          ['config', 'dockerfileRootUser', 'Dockerfile', 3, 'warning'],
        ].sort((a, b) => String(a[2]).localeCompare(String(b[2])) || Number(a[3]) - Number(b[3])),
      );
      const injection = res.body.findings.find((f: any) => f.line === 15);
      assert.deepEqual([injection.column, injection.evidence.snippet], [17, '${{ github.event.issue.title }}']);
      assert.match(injection.message, /env:/);
    },
  );

  it('400 without files or with contents that are not text; 401 without a token', async () => {
    for (const [body, path] of [
      [{}, '/files'],
      [{ files: [] }, '/files'],
      [{ files: { 'a.txt': 42 } }, '/files/a.txt'],
    ] as const) {
      const res = await scan(body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.details[0].path, path);
    }
    assert.equal((await scan({ files: {} }, null)).status, 401);
  });
});

describe('POST /v1/security/secrets/check', () => {
  let a: { token: string };
  let b: { token: string };
  const value = `set-${random(24)}`;
  const literal = `ghp_${random(36)}`;
  const responses: ApiResponse[] = [];
  before(async () => {
    process.env.AWP_SECRET_I15_SET = value;
    // An operator (admin scope) may learn env: state; tenants never (test/api/credentials.test.ts).
    a = await harness.account({ scopes: [...DEFAULT_SCOPES, 'admin'] });
    b = await harness.account();
    assert.equal(
      (
        await harness.call('POST', '/v1/bridge/credentials', {
          token: a.token,
          body: { name: 'i15-set', kind: 'bearer', value },
        })
      ).status,
      201,
    );
    const reg = await harness.call('POST', '/v1/bridge/connectors', {
      token: a.token,
      body: crmConnector('i15-crm', {
        credential: { type: 'bearer', tokenRef: 'cred:i15-set' },
        scopes: [{ actions: ['crm.read'], tokenRefs: ['cred:i15-unset'] }],
      }),
    });
    assert.equal(reg.status, 201, reg.text);
  });
  after(() => {
    delete process.env.AWP_SECRET_I15_SET;
    for (const res of responses)
      assert.ok(!res.text.includes(value) && !res.text.includes(literal), 'no value in any answer');
  });
  const check = async (body: unknown, t: string | null = a.token) => {
    const res = await harness.call('POST', '/v1/security/secrets/check', { token: t ?? undefined, body });
    responses.push(res);
    return res;
  };

  it(
    'each reference: resolvable, missing, outOfBounds, ' + 'literal or malformed, in words, never with a value',
    async () => {
      const res = await check({
        refs: [
          { name: 'crm', ref: 'env:AWP_SECRET_I15_SET' },
          { name: 'twilio', ref: 'env:AWP_SECRET_I15_UNSET' },
          { name: 'db', ref: 'env:DATABASE_URL' },
          { name: 'vault', ref: 'vault:kv/crm#token' },
          { name: 'pasted', ref: literal },
          { name: 'typo', ref: 'env:AWP-SECRET' },
          { name: 'word', ref: 'token' },
        ],
      });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(
        res.body.results.map((r: any) => [r.name, r.status, r.ref, r.variable]),
        [
          ['crm', 'resolvable', 'env:AWP_SECRET_I15_SET', 'AWP_SECRET_I15_SET'],
          ['twilio', 'missing', 'env:AWP_SECRET_I15_UNSET', 'AWP_SECRET_I15_UNSET'],
          ['db', 'outOfBounds', 'env:DATABASE_URL', null],
          ['vault', 'outOfBounds', null, null],
          ['pasted', 'literal', null, null],
          ['typo', 'malformed', null, null],
          ['word', 'malformed', null, null],
        ],
      );
      const words = {
        resolvable: /resolvable/,
        missing: /missing/,
        outOfBounds: /out of bounds/,
        literal: /literal/,
        malformed: /malformed/,
      } as const;
      for (const r of res.body.results) assert.match(r.message, words[r.status as keyof typeof words]);
      assert.deepEqual([res.body.allResolvable, res.body.prefix, res.body.connectorId], [false, 'AWP_SECRET_', null]);
    },
  );

  it('connectorId: every reference the connector holds, named by its field', async () => {
    const res = await check({ connectorId: 'i15-crm', refs: [{ name: 'extra', ref: 'env:AWP_SECRET_I15_SET' }] });
    assert.deepEqual(
      res.body.results.map((r: any) => [r.name, r.status]),
      [
        ['credential.tokenRef', 'resolvable'],
        ['scopes/0/tokenRefs/0', 'missing'],
        ['extra', 'resolvable'],
      ],
    );
    assert.equal(res.body.connectorId, 'i15-crm');
    const ready = await check({ refs: [{ name: 'crm', ref: 'env:AWP_SECRET_I15_SET' }] });
    assert.equal(ready.body.allResolvable, true);
  });

  it(
    "404 for an unknown connector and for another account's; 400 with neither refs nor connectorId; 401 " +
      'without a token',
    async () => {
      assert.equal((await check({ connectorId: 'nope' })).status, 404);
      const theirs = await check({ connectorId: 'i15-crm' }, b.token);
      assert.deepEqual([theirs.status, theirs.body.error], [404, 'notFound']);
      const empty = await check({});
      assert.deepEqual([empty.status, empty.body.details[0].path], [400, '/refs']);
      assert.equal((await check({ refs: [{ name: 'x' }] })).status, 400);
      assert.equal((await check({ refs: [{ name: 'x', ref: 'env:AWP_SECRET_I15_SET' }] }, null)).status, 401);
    },
  );
});
