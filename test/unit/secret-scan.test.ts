import assert from 'node:assert/strict';
import {
  isFixturePath,
  isPlaceholder,
  isReferenceValue,
  looksSecret,
  redactedEvidence,
} from '../../jobs/security/logic.js';
import { scanFiles } from '../../jobs/security/scan.js';
import { createLogger } from '../../shared/log.js';
import { random } from '../support/planted-secrets.js';

describe('secret scanning: the pure rules, and input built to make patterns backtrack', () => {
  it('placeholders, fixtures, references and what looks secret', () => {
    for (const p of [
      'AKIAIOSFODNN7EXAMPLE',
      'your-api-key-here',
      'xxxxxxxxxxxxxxxx',
      '<client-secret>',
      'ghp_000000000000000000000000000000000000',
      'sk_live_1234567890abcdefghij',
      'password',
      '${API_KEY}',
    ])
      assert.ok(isPlaceholder(p), p);
    for (const real of [`ghp_${random(36)}`, random(40), `sk_live_${random(32)}`])
      assert.ok(!isPlaceholder(real), real);
    for (const f of [
      'test/fixtures/keys.env',
      'src/__fixtures__/a.json',
      'pkg/testdata/x',
      'config/app.env.example',
      'fake_credentials.rb',
      'docs/sample.yml',
      'spec/__mocks__/aws.js',
    ])
      assert.ok(isFixturePath(f), f);
    for (const f of [
      'src/config.js',
      'deploy/.env.production',
      'test/api/login.test.ts',
      'docs/setup.md',
      'src/index.ts',
    ])
      assert.ok(!isFixturePath(f), f);
    for (const r of [
      'env:AWP_SECRET_X',
      '$TOKEN',
      '${TOKEN}',
      '${{ secrets.X }}',
      'process.env.TOKEN',
      "os.environ['X']",
      'arn:aws:secretsmanager:eu-west-1:123:secret:x',
      'op://vault/item/field',
    ])
      assert.ok(isReferenceValue(r), r);
    assert.ok(!isReferenceValue(random(32)));
    assert.ok(looksSecret(random(40, 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+/')));
    for (const notSecret of [
      'https://example.com/a/b/c/d/e/f/g',
      './config/credentials/prod-aws.yaml',
      '/var/run/secrets/kubernetes.io/serviceaccount/token',
      'short',
      'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
    ])
      assert.ok(!looksSecret(notSecret), notSecret);
    assert.ok(looksSecret('/Kq8ZtR2xWmPb7YcN4vLd9FhJ3sAe6GuT1oXiBnQ'), 'a base64 secret that starts with /');
    assert.deepEqual(redactedEvidence('ghp_abcdefghijklmnopqrstuvwxyz0123456789'), { prefix: 'ghp_', length: 40 });
    assert.deepEqual(redactedEvidence('abcdefgh'), { prefix: 'ab', length: 8 });
  });

  // Each pattern runs over untrusted text as large as a request allows. A pattern that backtracks without bound on one
  // of these inputs takes minutes (50 KB of "a" took 6.5 s before the generic rule's key was bounded); this test would
  // then hit its timeout.
  it("answers on 1 MB files built against each rule's pattern", async function () {
    this.timeout(120_000);
    const MB = 1_000_000;
    const fill = (unit: string, head = '') => head + unit.repeat(Math.floor((MB - head.length) / unit.length));
    const inputs: Record<string, string> = {
      'word.txt': fill('a'),
      'tokens.txt': fill('token'),
      'jwt-dash.txt': fill('eyJ-'),
      'jwt-dot.txt': fill('eyJ.'),
      'dots.txt': fill('.', 'eyJ'),
      'assign.txt': fill('a='),
      'stripe.txt': fill('sk_live_'),
      'slack.txt': fill('xoxb-1-'),
      'pg.txt': fill('postgres://'),
      'aws.txt': fill('aws_secret_access_key = '),
      'spaces.txt': fill(' ', 'secret_key ='),
      'akia.txt': fill('AKIA'),
      'pem.txt': fill('A', '-----BEGIN PRIVATE KEY-----\n'),
      'basic.txt': fill('https://a:b@'),
      'quotes.txt': fill('token="'),
      'x.json': fill('{"private_key":"'),
      '.npmrc': fill('_authToken='),
      'mongo.txt': fill('mongodb://a:'),
      'aiza.txt': fill('AIza-'),
      'glc.txt': fill('glc_/'),
      'glpat.txt': fill('glpat-'),
      'jwt64.txt': fill('ZXlK/'),
      'jwt64-run.txt': fill('A', 'ZXlK'),
      'sentry.txt': fill('A', 'sntrys_eyJpYXQiO'),
      'keyed.txt': fill('twitter,'),
      'curl.sh': fill('curl -H "Authorization: Bearer a'),
      'curl-lines.sh': fill('curl \\\n'),
      'docs.yaml': fill('---\nkind: Secret\ndata:\n'),
      'secret.yaml': fill('a', 'kind: Secret\ndata:\n  x: '),
    };
    for (const [file, content] of Object.entries(inputs)) {
      const res = await scanFiles({ [file]: content }, createLogger('silent'));
      assert.equal(res.scanErrors.length, 0, file);
      assert.ok(res.findings.length <= 100, `${file}: at most 100 findings listed`);
    }
    // Every match is a Slack app token: the table stops at its cap, and says so.
    const many = await scanFiles({ 'xapp.txt': fill('xapp-1-') }, createLogger('silent'));
    assert.deepEqual(
      [many.findings.length, many.omitted, many.scanErrors.map((e) => e.message)],
      [100, 900, ['over 1000 matches of the provider key rules: the first 1000 were checked']],
    );
    const huge = await scanFiles(
      { Dockerfile: fill('FROM a\n'), '.github/workflows/deep.yml': fill('[', 'a: ') },
      createLogger('silent'),
    );
    assert.deepEqual(
      huge.scanErrors.map((e) => e.file),
      ['Dockerfile', '.github/workflows/deep.yml'],
    );
    assert.equal(huge.verdict, 'warn');
  });

  it(
    "an AWS secret access key ending in / or + (which the preset's pattern misses) is still found as one, by " +
      'its name',
    async () => {
      const keys = [`${random(39)}/`, `${random(39)}+`, random(40)];
      const res = await scanFiles(
        { 'aws.ini': keys.map((k, i) => `[p${i}]\naws_secret_access_key = ${k}\n`).join('') },
        createLogger('silent'),
      );
      assert.deepEqual(
        res.findings.map((f) => [f.kind, f.line, f.evidence.length]),
        [
          ['awsSecretAccessKey', 2, 40],
          ['awsSecretAccessKey', 4, 40],
          ['awsSecretAccessKey', 6, 40],
        ],
      );
    },
  );

  it('lists 100 findings of a file and counts the rest; the verdict counts them all', async () => {
    const keys = Array.from(
      { length: 150 },
      () => `const k = "AKIA${random(16, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567')}";`,
    ).join('\n');
    const res = await scanFiles({ 'keys.js': keys }, createLogger('silent'));
    assert.deepEqual([res.findings.length, res.omitted, res.verdict], [100, 50, 'block']);
  });
});
