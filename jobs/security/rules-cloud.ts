import { END, key, r, tok, UUID, type ProviderRule } from './rule-table.js';

const NEW_RELIC = ['new-relic', 'newrelic', 'new_relic'];
const YANDEX = ['yandex'];

/** Cloud, hosting, infrastructure and observability keys (rule-table.ts says what the columns are). */
export const CLOUD_RULES: ProviderRule[] = [
  // 39 characters from `AIza`. They sit in URLs (`?key=AIza…&callback=`), so any character not of a key ends one.
  tok('gcp-api-key', 'Google API key', ['aiza'], r`(?<![\w-])(AIza[\w-]{35})(?![\w-])`, 4, { kind: 'googleApiKey' }),
  // secretlint's AWS rule knows AKIA, ASIA, A3T and the other IAM prefixes; these two are newer.
  tok('aws-access-token', 'AWS access key ID', ['abia', 'acca'], r`\b(?:ABIA|ACCA)[A-Z2-7]{16}\b`, 3, {
    kind: 'awsAccessKeyId',
  }),
  tok(
    'aws-amazon-bedrock-api-key-long-lived',
    'Amazon Bedrock API key',
    ['absk'],
    r`(?<![\w+/=])(ABSK[A-Za-z0-9+/]{109,269}={0,2})${END}`,
    3,
  ),
  // The prefix is base64 of "bedrock.amazonaws.com" and a key goes on with its presigned URL. gitleaks matches the
  // prefix alone, which is no key: rule tables and docs quote it.
  tok(
    'aws-amazon-bedrock-api-key-short-lived',
    'Amazon Bedrock short-term API key',
    ['bedrock-api-key-'],
    r`\bbedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t[A-Za-z0-9+/=]{40,4000}`,
    3,
  ),
  tok('alibaba-access-key-id', 'Alibaba Cloud AccessKey ID', ['ltai'], r`\b(LTAI[a-zA-Z0-9]{20})${END}`, 2, {
    kind: 'clientId',
  }),
  key('alibaba-secret-key', 'Alibaba Cloud AccessKey secret', ['alibaba'], '[a-z0-9]{30}', 2, { kind: 'clientSecret' }),
  tok(
    'azure-ad-client-secret',
    'Azure AD client secret',
    ['q~'],
    r`(?<![^\\'"\x60\s>=:(,)])([a-zA-Z0-9_~.]{3}\dQ~[a-zA-Z0-9_~.-]{31,34})(?![^\\'"\x60\s<),])`,
    3,
    { kind: 'clientSecret' },
  ),
  key('cloudflare-api-key', 'Cloudflare API token', ['cloudflare'], '[a-z0-9_-]{40}', 2),
  key('cloudflare-global-api-key', 'Cloudflare global API key', ['cloudflare'], '[a-f0-9]{37}', 2),
  tok(
    'cloudflare-origin-ca-key',
    'Cloudflare Origin CA key',
    ['v1.0-'],
    r`\b(v1\.0-[a-f0-9]{24}-[a-f0-9]{146})${END}`,
    2,
  ),
  tok('digitalocean-access-token', 'DigitalOcean OAuth token', ['doo_v1_'], r`\b(doo_v1_[a-f0-9]{64})${END}`, 3),
  tok('digitalocean-pat', 'DigitalOcean personal access token', ['dop_v1_'], r`\b(dop_v1_[a-f0-9]{64})${END}`, 3),
  tok('digitalocean-refresh-token', 'DigitalOcean refresh token', ['dor_v1_'], r`\b(dor_v1_[a-fA-F0-9]{64})${END}`),
  tok(
    'flyio-access-token',
    'Fly.io access token',
    ['fo1_', 'fm1', 'fm2_'],
    r`(?<![\w+/=-])(fo1_[\w-]{43}|fm1[ar]_[a-zA-Z0-9+/]{100,2000}={0,3}|fm2_[a-zA-Z0-9+/]{100,2000}={0,3})${END}`,
    4,
  ),
  key('heroku-api-key', 'Heroku API key', ['heroku'], UUID),
  tok('heroku-api-key-v2', 'Heroku API key', ['hrku-aa'], r`\b(HRKU-AA[0-9a-zA-Z_-]{58})${END}`, 4),
  tok(
    'hashicorp-tf-api-token',
    'Terraform Cloud API token',
    ['atlasv1'],
    r`\b[a-zA-Z0-9]{14}\.atlasv1\.[a-zA-Z0-9_=-]{60,70}(?![\w=-])`,
    3.5,
  ),
  key(
    'hashicorp-tf-password',
    'password in Terraform',
    ['administrator_login_password', 'password'],
    '[a-z0-9=_-]{8,20}',
    2,
    {
      kind: 'password',
      path: /\.(?:tf|hcl)$/i,
    },
  ),
  tok('vault-batch-token', 'HashiCorp Vault batch token', ['hvb.'], r`\b(hvb\.[\w-]{138,300})${END}`, 4),
  tok(
    'vault-service-token',
    'HashiCorp Vault service token',
    ['hvs.', 's.'],
    r`\b(hvs\.[\w-]{90,120}|s\.[a-zA-Z0-9]{24})${END}`,
    3.5,
    {
      notKey: /^s\.[A-Za-z]{24}$/,
    },
  ),
  key('yandex-access-token', 'Yandex access token', YANDEX, r`t1\.[\w-]{1,200}={0,2}\.[\w-]{86}={0,2}`),
  key('yandex-api-key', 'Yandex API key', YANDEX, r`AQVN[\w-]{35,38}`),
  key('yandex-aws-access-token', 'Yandex Cloud static access key', YANDEX, r`YC[\w-]{38}`),
  tok('scalingo-api-token', 'Scalingo API token', ['tk-us-'], r`\b(tk-us-[\w-]{48})${END}`, 2),
  key('netlify-access-token', 'Netlify access token', ['netlify'], '[a-z0-9=_-]{40,46}'),
  tok('planetscale-api-token', 'PlanetScale API token', ['pscale_tkn_'], r`\b(pscale_tkn_[\w=.-]{32,64})${END}`, 3),
  tok(
    'planetscale-oauth-token',
    'PlanetScale OAuth token',
    ['pscale_oauth_'],
    r`\b(pscale_oauth_[\w=.-]{32,64})${END}`,
    3,
  ),
  tok('planetscale-password', 'PlanetScale password', ['pscale_pw_'], r`\b(pscale_pw_[\w=.-]{32,64})${END}`, 3, {
    kind: 'password',
  }),
  tok('clickhouse-cloud-api-secret-key', 'ClickHouse Cloud API secret', ['4b1d'], r`\b(4b1d[A-Za-z0-9]{38})\b`, 3),
  tok('databricks-api-token', 'Databricks API token', ['dapi'], r`\b(dapi[a-f0-9]{32}(?:-\d)?)${END}`, 3),
  tok('doppler-api-token', 'Doppler API token', ['dp.pt.'], r`\bdp\.pt\.[a-zA-Z0-9]{43}\b`, 2),
  tok('pulumi-api-token', 'Pulumi API token', ['pul-'], r`\b(pul-[a-f0-9]{40})${END}`, 2),
  tok('infracost-api-token', 'Infracost API token', ['ico-'], r`\b(ico-[a-zA-Z0-9]{32})${END}`, 3),
  key('confluent-access-token', 'Confluent API key', ['confluent'], '[a-z0-9]{16}'),
  key('confluent-secret-key', 'Confluent API secret', ['confluent'], '[a-z0-9]{64}', undefined, {
    kind: 'clientSecret',
  }),
  key('datadog-access-token', 'Datadog access token', ['datadog'], '[a-z0-9]{40}'),
  tok('dynatrace-api-token', 'Dynatrace API token', ['dt0c01.'], r`\bdt0c01\.[a-zA-Z0-9]{24}\.[a-zA-Z0-9]{64}\b`, 4),
  key('new-relic-browser-api-token', 'New Relic browser API token', NEW_RELIC, 'NRJS-[a-f0-9]{19}'),
  key('new-relic-insert-key', 'New Relic insert key', NEW_RELIC, 'NRII-[a-z0-9-]{32}'),
  key('new-relic-user-api-key', 'New Relic user API key', NEW_RELIC, 'NRAK-[a-z0-9]{27}'),
  key('new-relic-user-api-id', 'New Relic user API ID', NEW_RELIC, '[a-z0-9]{64}', undefined, { kind: 'clientId' }),
  key('sumologic-access-id', 'Sumo Logic access ID', ['sumo'], 'su[a-zA-Z0-9]{12}', 3, { kind: 'clientId', flags: '' }),
  key('sumologic-access-token', 'Sumo Logic access key', ['sumo'], '[a-z0-9]{64}', 3),
  tok('grafana-api-key', 'Grafana API key', ['eyjrijoi'], r`\b(eyJrIjoi[A-Za-z0-9]{70,400}={0,3})${END}`, 3),
  tok(
    'grafana-cloud-api-token',
    'Grafana Cloud API token',
    ['glc_'],
    r`(?<![\w+/=])(glc_[A-Za-z0-9+/]{32,400}={0,3})${END}`,
    3,
  ),
  tok(
    'grafana-service-account-token',
    'Grafana service account token',
    ['glsa_'],
    r`\b(glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8})${END}`,
    3,
  ),
  key('sentry-access-token', 'Sentry access token', ['sentry'], '[a-f0-9]{64}', 3),
  tok(
    'sentry-org-token',
    'Sentry organization token',
    ['sntrys_eyjpyxqio'],
    r`\bsntrys_eyJpYXQiO[a-zA-Z0-9+/]{10,200}(?:LCJyZWdpb25fdXJs|InJlZ2lvbl91cmwi|cmVnaW9uX3VybCI6)` +
      r`[a-zA-Z0-9+/]{10,200}={0,2}_[a-zA-Z0-9+/]{43}(?![a-zA-Z0-9+/])`,
    4.5,
  ),
  tok('sentry-user-token', 'Sentry user token', ['sntryu_'], r`\b(sntryu_[a-f0-9]{64})${END}`, 3.5),
  tok('openshift-user-token', 'OpenShift user token', ['sha256~'], r`\b(sha256~[\w-]{43})(?![\w-])`, 3.5),
  key('okta-access-token', 'Okta API token', ['okta'], r`00[\w=-]{40}`, 4, { flags: '' }),
  key(
    'defined-networking-api-token',
    'Defined Networking API token',
    ['dnkey'],
    'dnkey-[a-z0-9=_-]{26}-[a-z0-9=_-]{52}',
  ),
  tok(
    'authress-service-client-access-key',
    'Authress service client access key',
    ['sc_', 'ext_', 'scauth_', 'authress_'],
    r`\b((?:sc|ext|scauth|authress)_[a-zA-Z0-9]{5,30}\.[a-zA-Z0-9]{4,6}\.acc[_-][a-zA-Z0-9-]{10,32}` +
      r`\.[a-zA-Z0-9+/_=-]{30,120})${END}`,
    2,
  ),
  tok('octopus-deploy-api-key', 'Octopus Deploy API key', ['api-'], r`\b(API-[A-Z0-9]{26})${END}`, 3),
  tok(
    'harness-api-key',
    'Harness API key',
    ['pat.', 'sat.'],
    r`\b(?:pat|sat)\.[\w-]{22}\.[a-zA-Z0-9]{24}\.[a-zA-Z0-9]{20}\b`,
  ),
  tok('prefect-api-token', 'Prefect API token', ['pnu_'], r`\b(pnu_[a-zA-Z0-9]{36})${END}`, 2),
  ...['application', 'personal', 'service'].map((which) =>
    tok(
      `settlemint-${which}-access-token`,
      `SettleMint ${which} access token`,
      [`sm_${which[0]}at`],
      r`\b(sm_${which[0]}at_[a-zA-Z0-9]{16})${END}`,
      3,
    ),
  ),
];
