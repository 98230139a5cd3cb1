import { generateKeyPairSync, randomBytes } from 'node:crypto';

/**
 * Secrets made at test time (never committed), each of a kind the scanner
 * names, planted in files at known lines; and decoys that must not be
 * reported: placeholders, documented examples, references, hashes under
 * names that are not secret, and real-looking keys in files named as test
 * fixtures.
 */

const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const ALNUM = `${UPPER}abcdefghijklmnopqrstuvwxyz0123456789`;
const DIGITS = '0123456789';

export function random(n: number, alphabet = ALNUM): string {
  return Array.from(randomBytes(n), (b) => alphabet[b % alphabet.length]).join('');
}

const b64url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

export interface Planted {
  kind: string;
  value: string;
  file: string;
  line: number;
}

/** Files with planted secrets (at least ten kinds) and decoys, and where each secret is. */
export function plantedRepo(): { files: Record<string, string>; planted: Planted[]; decoyValues: string[] } {
  const pem = String(
    generateKeyPairSync('ec', {
      namedCurve: 'P-256',
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    }).privateKey,
  );
  const secrets = {
    awsAccessKeyId: `AKIA${random(16, UPPER + '234567')}`,
    awsSecretAccessKey: random(40, `${ALNUM}+/`),
    githubToken: `ghp_${random(36)}`,
    slackToken: `xoxb-${random(11, DIGITS)}-${random(12, DIGITS)}-${random(24)}`,
    stripeKey: `sk_live_${random(32)}`,
    jwt:
      `${b64url({ alg: 'HS256', typ: 'JWT' })}.` +
      `${b64url({ sub: random(8), exp: Math.floor(Date.now() / 1000) + 86_400 })}.${random(43, `${ALNUM}-_`)}`,
    npmToken: `npm_${random(36)}`,
    sendgridApiKey: `SG.${random(22)}.${random(43)}`,
    anthropicApiKey: `sk-ant-api03-${random(93)}AA`,
    databaseConnectionString: `postgres://app:${random(24)}@db.internal.example:5432/app`,
    genericHighEntropy: random(40, `${ALNUM}+/=`),
    privateKey: pem.trim(),
  };
  const config = [
    '// service configuration',
    `const awsKeyId = "${secrets.awsAccessKeyId}";`,
    `aws_secret_access_key = "${secrets.awsSecretAccessKey}"`,
    `const stripe = require('stripe')("${secrets.stripeKey}");`,
    `export const sessionToken = "${secrets.jwt}";`,
    `export const clientSecret = "${secrets.genericHighEntropy}";`,
    `const db = "${secrets.databaseConnectionString}";`,
    '',
  ].join('\n');
  const env = [
    `GITHUB_TOKEN=${secrets.githubToken}`,
    `SLACK_BOT_TOKEN=${secrets.slackToken}`,
    `SENDGRID_API_KEY=${secrets.sendgridApiKey}`,
    `ANTHROPIC_API_KEY=${secrets.anthropicApiKey}`,
    '',
  ].join('\n');
  const decoys = {
    fixtureKey: `ghp_${random(36)}`,
    sampleKey: `sk_live_${random(32)}`,
    sha: randomBytes(20).toString('hex'),
    integrity: `sha512-${randomBytes(48).toString('base64')}`,
    uuid: '3f8e2b9a-4c1d-4e6f-9a7b-2c5d8e1f0a3b',
  };
  const files: Record<string, string> = {
    'src/config.js': config,
    'deploy/.env.production': env,
    '.npmrc': `registry=https://registry.npmjs.org/\n//registry.npmjs.org/:_authToken=${secrets.npmToken}\n`,
    'deploy/keys/service.pem': `${secrets.privateKey}\n`,
    'src/decoys.py': [
      'import os',
      'API_KEY = os.environ["API_KEY"]',
      'aws_access_key_id = "AKIAIOSFODNN7EXAMPLE"',
      'aws_secret_access_key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"',
      'password = "your-password-here"',
      'api_token = "env:AWP_SECRET_API_TOKEN"',
      'deploy_token = "${{ secrets.DEPLOY_TOKEN }}"',
      `commit = "${decoys.sha}"`,
      `integrity = "${decoys.integrity}"`,
      `request_id = "${decoys.uuid}"`,
      'stripe_key = "sk_live_xxxxxxxxxxxxxxxxxxxxxxxxxxxx"',
      'client_secret = "<your-client-secret>"',
      'db_password = "changeme-changeme-changeme"',
      'GITHUB_TOKEN = "ghp_000000000000000000000000000000000000"',
      '',
    ].join('\n'),
    'test/fixtures/credentials.env': `GITHUB_TOKEN=${decoys.fixtureKey}\n`,
    'config/stripe.example': `STRIPE_SECRET_KEY=${decoys.sampleKey}\n`,
  };
  const at = (file: string, value: string) => files[file]!.slice(0, files[file]!.indexOf(value)).split('\n').length;
  const where: Record<keyof typeof secrets, string> = {
    awsAccessKeyId: 'src/config.js',
    awsSecretAccessKey: 'src/config.js',
    stripeKey: 'src/config.js',
    jwt: 'src/config.js',
    genericHighEntropy: 'src/config.js',
    databaseConnectionString: 'src/config.js',
    githubToken: 'deploy/.env.production',
    slackToken: 'deploy/.env.production',
    sendgridApiKey: 'deploy/.env.production',
    anthropicApiKey: 'deploy/.env.production',
    npmToken: '.npmrc',
    privateKey: 'deploy/keys/service.pem',
  };
  const planted = (Object.keys(secrets) as Array<keyof typeof secrets>).map((kind) => ({
    kind,
    value: secrets[kind],
    file: where[kind],
    line: at(where[kind], secrets[kind]),
  }));
  return {
    files,
    planted,
    decoyValues: [
      decoys.fixtureKey,
      decoys.sampleKey,
      decoys.sha,
      decoys.integrity,
      decoys.uuid,
      'AKIAIOSFODNN7EXAMPLE',
    ],
  };
}
