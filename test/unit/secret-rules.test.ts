import assert from 'node:assert/strict';
import { PROVIDER_RULE_IDS, providerRule } from '../../jobs/security/provider-keys.js';
import { scanFiles } from '../../jobs/security/scan.js';
import { createLogger } from '../../shared/log.js';
import { r, samplesAtoF, WD } from '../support/provider-samples.js';
import { samplesGtoZ } from '../support/provider-samples-more.js';

const log = createLogger('silent');
const googleKey = () => `AIza${r(35, WD)}`;

describe("secret scanning: gitleaks' default rules, one generated key each", () => {
  it(
    'finds a Google API key in google-services.json, in a JavaScript constant and in an .env line, as a Google API ' +
      'key; placeholders of its shape are not reported',
    async () => {
      const [firebase, maps, dotenv] = [googleKey(), googleKey(), googleKey()];
      const servicesJson = {
        project_info: { project_number: '123456789012', project_id: 'demo-app' },
        client: [{ client_info: { mobilesdk_app_id: '1:123:android:abc' }, api_key: [{ current_key: firebase }] }],
      };
      const res = await scanFiles(
        {
          'android/app/google-services.json': JSON.stringify(servicesJson, null, 2),
          'config/maps.js': `// maps\nconst mapsKey = "${maps}";\nexport default mapsKey;\n`,
          '.env': `NODE_ENV=production\nGOOGLE_API_KEY=${dotenv}\n`,
          'config/placeholders.js': [
            'const a = "AIzaXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX";',
            'const b = "AIzaXXXX";',
            'const c = "AIzaSy-your-api-key-here-00000000000000";',
            'GOOGLE_API_KEY=your-api-key-here',
            'MAPS_API_KEY=<your-google-maps-key>',
          ].join('\n'),
        },
        log,
      );
      assert.deepEqual(
        res.findings.map((f) => [f.file, f.line, f.kind, f.ruleId, f.severity, f.evidence]),
        [
          ['.env', 2, 'googleApiKey', 'awp/gcp-api-key', 'error', { prefix: 'AIza', length: 39 }],
          [
            'android/app/google-services.json',
            13,
            'googleApiKey',
            'awp/gcp-api-key',
            'error',
            { prefix: 'AIza', length: 39 },
          ],
          ['config/maps.js', 2, 'googleApiKey', 'awp/gcp-api-key', 'error', { prefix: 'AIza', length: 39 }],
        ],
      );
      assert.match(res.findings[0]!.message, /^Google API key in \.env at line 2: revoke or rotate it/);
      assert.deepEqual(res.suppressed, { placeholder: 4, fixture: 0, reference: 0 });
      const answer = JSON.stringify(res);
      for (const key of [firebase, maps, dotenv]) assert.ok(!answer.includes(key.slice(4)), 'no key in the answer');
      assert.ok(res.rules.ruleIds.includes('awp/gcp-api-key'));
    },
  );

  it(
    'finds a generated key of every format, each alone, under the rule and kind expected, redacted; every gitleaks ' +
      'rule has a sample and every rule of the table is one of them; decoys of those shapes are not reported',
    async function () {
      this.timeout(60_000);
      const samples = [...samplesAtoF(), ...samplesGtoZ()];
      const ids = new Set(samples.map((s) => s.id));
      assert.equal(ids.size, 222, "gitleaks' default config has 222 rules");
      assert.deepEqual(
        PROVIDER_RULE_IDS.filter((id) => !ids.has(id)),
        [],
      );
      const files = Object.fromEntries(samples.map((s) => [s.file, s.text]));
      assert.equal(Object.keys(files).length, samples.length);
      const res = await scanFiles(files, log);
      assert.deepEqual(res.scanErrors, []);
      const wrong = samples.flatMap((s) => {
        const found = res.findings.filter((f) => f.file === s.file);
        const kind = s.kind ?? providerRule(s.id)?.kind;
        const severity = s.severity ?? (kind === 'clientId' ? 'warning' : 'error');
        const f = found[0];
        const right =
          found.length === 1 &&
          f!.ruleId === s.ruleId &&
          f!.kind === kind &&
          f!.severity === severity &&
          f!.evidence.length === s.value.length &&
          s.value.startsWith(f!.evidence.prefix);
        return right
          ? []
          : [`${s.id} in ${s.file}: ${JSON.stringify(found.map((x) => [x.ruleId, x.kind, x.severity]))}`];
      });
      assert.deepEqual(wrong, []);
      const answer = JSON.stringify(res);
      const leaked = samples.filter((s) => answer.includes(s.value.slice(Math.min(4, s.value.length >> 2))));
      assert.deepEqual(
        leaked.map((s) => s.id),
        [],
        'no value in the answer',
      );

      const decoys = await scanFiles(
        {
          'scripts/call.sh': 'curl -u "$CI_USER:$CI_PASS" https://ci/api\ncurl -H "Authorization: Bearer $TOKEN" x\n',
          'k8s/secret.yaml': 'kind: Secret\ndata:\n  password: Y2hhbmdlbWU=\nstringData:\n  token: "{{ .Values.t }}"\n',
          '.env': 'TWITTER_API_KEY=xxxxxxxxxxxxxxxxxxxxxxxxx\nDISCORD_CLIENT_SECRET=${DISCORD_SECRET}\n',
          'docs/sourcegraph.md': `Sourcegraph at commit ${r(40, '0123456789abcdef')}.\n`,
          'docs/keys.md': 'Vault: s.abcdefghijklmnopqrstuvwx; Bedrock: bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t\n',
        },
        log,
      );
      assert.deepEqual(decoys.findings, [], 'references, placeholders, hashes and prefixes are not keys');
      assert.deepEqual(decoys.suppressed, { placeholder: 2, fixture: 0, reference: 2 });
    },
  );
});
