import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { isPlaceholder } from '../../jobs/security/logic.js';
import { random } from './planted-secrets.js';

/**
 * One key of each format of gitleaks' default rule set (config/gitleaks.toml),
 * made now from random characters of the format's alphabet and length, so no
 * real-looking key is committed. Each sits alone in a file of its own:
 * assigned to a neutral name when the format names its provider, under a key
 * that names the provider when only the key does.
 */

export const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
export const LOWER = 'abcdefghijklmnopqrstuvwxyz';
export const DIGITS = '0123456789';
export const HEX = `${DIGITS}abcdef`;
export const AN = `${UPPER}${LOWER}${DIGITS}`;
/** Lower-case letters and digits. */
export const LAN = `${LOWER}${DIGITS}`;
export const UAN = `${UPPER}${DIGITS}`;
export const W = `${AN}_`;
export const WD = `${AN}_-`;
export const B64 = `${AN}+/`;
/** Random characters; a run of 8 or more is drawn again in the rare case it spells a placeholder (`xxxx`, `your-`). */
export function r(n: number, alphabet?: string): string {
  for (;;) {
    const value = random(n, alphabet);
    if (n < 8 || !isPlaceholder(value)) return value;
  }
}
export const uuid = () => randomUUID();
/** n different characters (a short key under an entropy threshold: 12 random characters may repeat below it). */
export const distinct = (n: number, alphabet: string) =>
  [...alphabet]
    .sort(() => Math.random() - 0.5)
    .slice(0, n)
    .join('');

export interface Sample {
  /** gitleaks' rule id. */
  id: string;
  file: string;
  text: string;
  /** The secret, as the finding's evidence length and prefix must show it. */
  value: string;
  /** The rule expected to report it: the provider table's `awp/<id>` unless a preset or own rule covers the format. */
  ruleId: string;
  /** The kind expected, when the test names it (else the table's). */
  kind?: string;
  /** `warning` for a test-mode key or an identifier; else `error`. */
  severity?: 'warning';
}

type Expect = Partial<Pick<Sample, 'ruleId' | 'kind' | 'severity'>>;

let n = 0;
const name = (id: string, ext: string) => `samples/${String(++n).padStart(3, '0')}-${id}${ext}`;

/** A key whose format names its provider, assigned to a name that does not. */
export function tok(id: string, value: string, expect: Expect = {}): Sample {
  return {
    id,
    file: name(id, '.ts'),
    text: `export const value = "${value}";\n`,
    value,
    ruleId: `awp/${id}`,
    ...expect,
  };
}

/** A value named only by its key. */
export function env(id: string, keyName: string, value: string, expect: Expect = {}): Sample {
  return { id, file: name(id, '.env'), text: `${keyName}=${value}\n`, value, ruleId: `awp/${id}`, ...expect };
}

/** A sample in a file of its own name and text (the value placed where `{}` is). */
export function inFile(id: string, file: string, template: string, value: string, expect: Expect = {}): Sample {
  return { id, file, text: template.replace('{}', value), value, ruleId: `awp/${id}`, ...expect };
}

const b64url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
export const jwt = () =>
  `${b64url({ alg: 'HS256', typ: 'JWT' })}.${b64url({ sub: r(8), exp: Math.floor(Date.now() / 1000) + 3600 })}.` +
  r(43, `${AN}-_`);

/** A 1Password service account token: `ops_` and a base64 JSON object (ending `fQ==`, as the preset wants). */
function onePasswordServiceToken(): string {
  let json = JSON.stringify({ signInAddress: 'my.1password.com', userAuth: { alg: 'PBES2g-HS256' }, srpX: r(64, HEX) });
  json = json.slice(0, -1) + `,"muk":"${r(200, AN)}"}`;
  while (json.length % 3 !== 1) json = json.slice(0, -2) + `${r(1, AN)}"}`;
  return `ops_${Buffer.from(json).toString('base64')}`;
}

function pem(): string {
  return String(
    generateKeyPairSync('ec', {
      namedCurve: 'P-256',
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    }).privateKey,
  ).trim();
}

export const preset = (rule: string, kind: string) => ({ ruleId: `@secretlint/secretlint-rule-${rule}`, kind });
const AWS_ID = `${UPPER}234567`;

/** The formats secretlint's preset and the service's own rules cover, and the table's from A to F. */
export function samplesAtoF(): Sample[] {
  return [
    tok('1password-secret-key', `A3-${r(6, UAN)}-${r(11, UAN)}-${r(5, UAN)}-${r(5, UAN)}-${r(5, UAN)}`),
    tok('1password-service-account-token', onePasswordServiceToken(), preset('1password', 'onePasswordToken')),
    env('adafruit-api-key', 'ADAFRUIT_IO_KEY', r(32, `${LAN}_-`)),
    env('adobe-client-id', 'ADOBE_CLIENT_ID', r(32, HEX), { kind: 'clientId', severity: 'warning' }),
    tok('adobe-client-secret', `p8e-${r(32, AN)}`),
    tok('age-secret-key', `AGE-SECRET-KEY-1${r(58, 'QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L')}`),
    env('airtable-api-key', 'AIRTABLE_API_KEY', r(17, LAN)),
    tok('airtable-personnal-access-token', `pat${r(14, AN)}.${r(64, HEX)}`),
    env('algolia-api-key', 'ALGOLIA_API_KEY', r(32, LAN)),
    tok('alibaba-access-key-id', `LTAI${r(20, AN)}`, { kind: 'clientId', severity: 'warning' }),
    env('alibaba-secret-key', 'ALIBABA_SECRET_KEY', r(30, LAN)),
    tok('anthropic-admin-api-key', `sk-ant-admin01-${r(93, WD)}AA`),
    tok('anthropic-api-key', `sk-ant-api03-${r(93, WD)}AA`, preset('anthropic', 'anthropicApiKey')),
    tok('artifactory-api-key', `AKCp${r(69, AN)}`),
    tok('artifactory-reference-token', `cmVmd${r(59, AN)}`),
    env('asana-client-id', 'ASANA_CLIENT_ID', r(16, DIGITS)),
    env('asana-client-secret', 'ASANA_CLIENT_SECRET', r(32, LAN)),
    env('atlassian-api-token', 'JIRA_API_TOKEN', distinct(20, LAN) + distinct(4, HEX)),
    tok('atlassian-api-token', `ATATT3${r(186, `${WD}=`)}`),
    tok('authress-service-client-access-key', `sc_${r(10, AN)}.${r(5, AN)}.acc_${r(20, LAN)}.${r(40, `${B64}_=-`)}`),
    tok('aws-access-token', `ABIA${r(16, AWS_ID)}`, { kind: 'awsAccessKeyId' }),
    tok('aws-access-token', `AKIA${r(16, AWS_ID)}`, preset('aws', 'awsAccessKeyId')),
    tok('aws-amazon-bedrock-api-key-long-lived', `ABSK${r(140, B64)}`),
    tok('aws-amazon-bedrock-api-key-short-lived', `bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t${r(200, B64)}`),
    tok('azure-ad-client-secret', `${r(3, AN)}${r(1, DIGITS)}Q~${r(34, `${AN}_~.-`)}`),
    env('beamer-api-token', 'BEAMER_API_KEY', `b_${r(44, `${LAN}=_-`)}`),
    env('bitbucket-client-id', 'BITBUCKET_CLIENT_ID', r(32, LAN)),
    env('bitbucket-client-secret', 'BITBUCKET_CLIENT_SECRET', r(64, `${LAN}=_-`)),
    env('bittrex-access-key', 'BITTREX_API_KEY', r(32, LAN)),
    env('bittrex-secret-key', 'BITTREX_API_SECRET', r(32, LAN)),
    env('cisco-meraki-api-key', 'MERAKI_DASHBOARD_API_KEY', r(40, HEX)),
    tok('clickhouse-cloud-api-secret-key', `4b1d${r(38, AN)}`),
    tok('clojars-api-token', `CLOJARS_${r(60, LAN)}`),
    env('cloudflare-api-key', 'CLOUDFLARE_API_TOKEN', r(40, `${LAN}_-`)),
    env('cloudflare-global-api-key', 'CLOUDFLARE_GLOBAL_KEY', r(37, HEX)),
    tok('cloudflare-origin-ca-key', `v1.0-${r(24, HEX)}-${r(146, HEX)}`),
    env('codecov-access-token', 'CODECOV_TOKEN', r(32, LAN)),
    env('cohere-api-token', 'COHERE_API_KEY', r(40, AN)),
    env('coinbase-access-token', 'COINBASE_ACCESS_TOKEN', r(64, `${LAN}_-`)),
    env('confluent-access-token', 'CONFLUENT_API_KEY', r(16, LAN)),
    env('confluent-secret-key', 'CONFLUENT_API_SECRET', r(64, LAN)),
    env('contentful-delivery-api-token', 'CONTENTFUL_DELIVERY_TOKEN', r(43, `${LAN}=_-`)),
    inFile(
      'curl-auth-header',
      'scripts/call.sh',
      'curl -s https://api.internal/v1/items \\\n  -H "Authorization: Bearer {}"\n',
      r(40, AN),
    ),
    inFile('curl-auth-user', 'scripts/deploy.sh', 'curl -u deploy:{} https://ci.internal/api/deploy\n', r(24, AN)),
    tok('databricks-api-token', `dapi${r(32, HEX)}`),
    env('datadog-access-token', 'DATADOG_ACCESS_TOKEN', r(40, LAN)),
    env('defined-networking-api-token', 'DNKEY', `dnkey-${r(26, `${LAN}=_-`)}-${r(52, `${LAN}=_-`)}`),
    tok('digitalocean-access-token', `doo_v1_${r(64, HEX)}`),
    tok('digitalocean-pat', `dop_v1_${r(64, HEX)}`),
    tok('digitalocean-refresh-token', `dor_v1_${r(64, HEX)}`),
    env('discord-api-token', 'DISCORD_BOT_TOKEN', r(64, HEX)),
    env('discord-client-id', 'DISCORD_CLIENT_ID', r(18, DIGITS)),
    env('discord-client-secret', 'DISCORD_CLIENT_SECRET', r(32, `${LAN}=_-`)),
    tok('doppler-api-token', `dp.pt.${r(43, AN)}`),
    env('droneci-access-token', 'DRONECI_TOKEN', r(32, LAN)),
    env('dropbox-api-token', 'DROPBOX_APP_SECRET', r(15, LAN)),
    env('dropbox-long-lived-api-token', 'DROPBOX_TOKEN', `${r(11, LAN)}AAAAAAAAAA${r(43, `${LAN}_=-`)}`),
    env('dropbox-short-lived-api-token', 'DROPBOX_TOKEN', `sl.${r(135, `${LAN}_=-`)}`),
    tok('duffel-api-token', `duffel_test_${r(43, `${AN}_=-`)}`, { severity: 'warning' }),
    tok('dynatrace-api-token', `dt0c01.${r(24, AN)}.${r(64, AN)}`),
    tok('easypost-api-token', `EZAK${r(54, AN)}`),
    tok('easypost-test-api-token', `EZTK${r(54, AN)}`, { severity: 'warning' }),
    env('etsy-access-token', 'ETSY_API_KEY', distinct(24, LAN)),
    inFile(
      'facebook-access-token',
      'src/facebook.ts',
      '// facebook app token\nexport const value = "{}";\n',
      `${r(15, DIGITS)}|${r(32, `${AN}_-`)}`,
    ),
    tok('facebook-page-access-token', `EAAM${r(120, AN)}`),
    env('facebook-secret', 'FACEBOOK_APP_SECRET', r(32, HEX)),
    env('fastly-api-token', 'FASTLY_API_TOKEN', r(32, `${LAN}=_-`)),
    env('finicity-api-token', 'FINICITY_API_TOKEN', r(32, HEX)),
    env('finicity-client-secret', 'FINICITY_CLIENT_SECRET', r(20, LAN)),
    env('finnhub-access-token', 'FINNHUB_TOKEN', r(20, LAN)),
    env('flickr-access-token', 'FLICKR_API_KEY', r(32, LAN)),
    tok('flutterwave-encryption-key', `FLWSECK_TEST-${r(12, 'abcdefgh0123456789')}`, { severity: 'warning' }),
    tok('flutterwave-public-key', `FLWPUBK_TEST-${r(32, 'abcdefgh0123456789')}-X`, { severity: 'warning' }),
    tok('flutterwave-secret-key', `FLWSECK_TEST-${r(32, 'abcdefgh0123456789')}-X`, { severity: 'warning' }),
    tok('flyio-access-token', `fo1_${r(43, WD)}`),
    tok('frameio-api-token', `fio-u-${r(64, `${AN}_=-`)}`),
    inFile('freemius-secret-key', 'wp/freemius.php', "<?php\n$fs = ['secret_key' => '{}'];\n", `sk_${r(29, AN)}`),
    env('freshbooks-access-token', 'FRESHBOOKS_TOKEN', r(64, LAN)),
    inFile('generic-api-key', 'src/settings.py', 'client_secret = "{}"\n', r(40, B64), {
      ruleId: 'awp/generic-high-entropy',
      kind: 'genericHighEntropy',
    }),
    inFile('private-key', 'deploy/service.pem', '{}\n', pem(), preset('privatekey', 'privateKey')),
  ];
}
