import { END, key, r, tok, UUID, type ProviderRule } from './rule-table.js';

const SLACK = { kind: 'slackToken' } as const;
const ID = { kind: 'clientId' } as const;
const SECRET = { kind: 'clientSecret' } as const;
const LINKEDIN = ['linkedin', 'linked_in', 'linked-in'];
const MESSAGEBIRD = ['messagebird', 'message-bird', 'message_bird'];
const TEST = /test/i;
const GUID = '[a-z0-9]{8}-(?:[a-z0-9]{4}-){3}[a-z0-9]{12}';

/** Messaging, social, mail and payment providers (rule-table.ts says what the columns are). */
export const APP_RULES: ProviderRule[] = [
  // secretlint's Slack rule knows xoxb, xoxp, xapp, xoxa, xoxo and xoxr tokens of dashed parts of at most 40
  // characters, and webhooks under /services/; these are the forms it misses or cuts short.
  tok('slack-app-token', 'Slack app token', ['xapp'], r`\bxapp-\d-[A-Z0-9]{1,40}-\d{1,20}-[a-z0-9]{1,200}\b`, 2, {
    ...SLACK,
    flags: 'i',
  }),
  tok(
    'slack-config-access-token',
    'Slack configuration token',
    ['xoxe.xoxb-', 'xoxe.xoxp-'],
    r`\bxoxe\.xox[bp]-\d-[A-Z0-9]{163,166}\b`,
    2,
    {
      ...SLACK,
      flags: 'i',
    },
  ),
  tok('slack-config-refresh-token', 'Slack configuration refresh token', ['xoxe-'], r`\bxoxe-\d-[A-Z0-9]{146}\b`, 2, {
    ...SLACK,
    flags: 'i',
  }),
  tok(
    'slack-legacy-token',
    'Slack legacy token',
    ['xoxo', 'xoxs'],
    r`\bxox[os]-\d{1,20}-\d{1,20}-\d{1,20}-[a-fA-F\d]{1,100}\b`,
    2,
    SLACK,
  ),
  tok(
    'slack-legacy-workspace-token',
    'Slack workspace token',
    ['xoxa', 'xoxr'],
    r`\bxox[ar]-(?:\d-)?[0-9a-zA-Z]{8,48}\b`,
    2,
    SLACK,
  ),
  tok(
    'slack-user-token',
    'Slack user token',
    ['xoxp-', 'xoxe-'],
    r`\bxox[pe](?:-[0-9]{10,13}){3}-[a-zA-Z0-9-]{28,34}\b`,
    2,
    SLACK,
  ),
  tok(
    'slack-webhook-url',
    'Slack workflow webhook URL',
    ['hooks.slack.com'],
    r`(?:https?://)?hooks\.slack\.com/(?:workflows|triggers)/[A-Za-z0-9+/]{43,56}(?![A-Za-z0-9+/])`,
    undefined,
    { kind: 'slackWebhook' },
  ),
  tok(
    'microsoft-teams-webhook',
    'Microsoft Teams webhook URL',
    ['webhook.office.com', 'webhookb2', 'incomingwebhook'],
    r`https://[a-z0-9]{1,100}\.webhook\.office\.com/webhookb2/${GUID}@${GUID}/IncomingWebhook/[a-z0-9]{32}/${GUID}`,
    undefined,
    { kind: 'webhookUrl' },
  ),
  key('mattermost-access-token', 'Mattermost access token', ['mattermost'], '[a-z0-9]{26}'),
  key('discord-api-token', 'Discord bot token', ['discord'], '[a-f0-9]{64}'),
  key('discord-client-id', 'Discord client ID', ['discord'], '[0-9]{18}', 2, ID),
  key('discord-client-secret', 'Discord client secret', ['discord'], '[a-z0-9=_-]{32}', 2, SECRET),
  key('telegram-bot-api-token', 'Telegram bot token', ['telegr'], '[0-9]{5,16}:A[a-zA-Z0-9_-]{34}', undefined, {
    flags: '',
  }),
  key('twitch-api-token', 'Twitch API token', ['twitch'], '[a-z0-9]{30}'),
  key('twitter-access-secret', 'Twitter access token secret', ['twitter'], '[a-z0-9]{45}', undefined, SECRET),
  key('twitter-access-token', 'Twitter access token', ['twitter'], '[0-9]{15,25}-[a-zA-Z0-9]{20,40}'),
  key('twitter-api-key', 'Twitter API key', ['twitter'], '[a-z0-9]{25}'),
  key('twitter-api-secret', 'Twitter API secret', ['twitter'], '[a-z0-9]{50}', undefined, SECRET),
  // The 22 A's are the format's own: the placeholder check looks at what follows them.
  key('twitter-bearer-token', 'Twitter bearer token', ['twitter'], 'A{22}[a-zA-Z0-9%]{80,100}', undefined, {
    flags: '',
    random: /^A{22}(.*)$/,
  }),
  tok(
    'facebook-access-token',
    'Facebook app access token',
    ['facebook'],
    r`\b(\d{15,16}(?:\||%)[\w-]{27,40})${END}`,
    3,
  ),
  tok(
    'facebook-page-access-token',
    'Facebook page access token',
    ['eaam', 'eaac'],
    r`\b(EAA[MC][a-zA-Z0-9]{100,1000})${END}`,
    4,
  ),
  key('facebook-secret', 'Facebook app secret', ['facebook'], '[a-f0-9]{32}', 3, SECRET),
  key('linkedin-client-id', 'LinkedIn client ID', LINKEDIN, '[a-z0-9]{14}', 2, ID),
  key('linkedin-client-secret', 'LinkedIn client secret', LINKEDIN, '[a-z0-9]{16}', 2, SECRET),
  key('mailchimp-api-key', 'Mailchimp API key', ['mailchimp'], r`[a-f0-9]{32}-us\d\d`),
  key('mailgun-private-api-token', 'Mailgun API key', ['mailgun'], 'key-[a-f0-9]{32}'),
  key('mailgun-pub-key', 'Mailgun public validation key', ['mailgun'], 'pubkey-[a-f0-9]{32}'),
  key(
    'mailgun-signing-key',
    'Mailgun webhook signing key',
    ['mailgun'],
    '[a-h0-9]{32}-[a-h0-9]{8}-[a-h0-9]{8}',
    undefined,
    SECRET,
  ),
  tok(
    'sendinblue-api-token',
    'Brevo (Sendinblue) API key',
    ['xkeysib-'],
    r`\b(xkeysib-[a-f0-9]{64}-[a-zA-Z0-9]{16})${END}`,
    2,
  ),
  key('messagebird-api-token', 'MessageBird API key', MESSAGEBIRD, '[a-z0-9]{25}'),
  key('messagebird-client-id', 'MessageBird client ID', MESSAGEBIRD, UUID, undefined, ID),
  key('sendbird-access-id', 'Sendbird application ID', ['sendbird'], UUID, undefined, ID),
  key('sendbird-access-token', 'Sendbird API token', ['sendbird'], '[a-f0-9]{40}'),
  tok('twilio-api-key', 'Twilio API key', ['sk'], r`\bSK[0-9a-fA-F]{32}\b`, 3),
  key('dropbox-api-token', 'Dropbox API secret', ['dropbox'], '[a-z0-9]{15}'),
  key(
    'dropbox-long-lived-api-token',
    'Dropbox long-lived token',
    ['dropbox'],
    '[a-z0-9]{11}AAAAAAAAAA[a-z0-9_=-]{43}',
    undefined,
    {
      random: /^(.{11})A{10}(.*)$/,
    },
  ),
  key('dropbox-short-lived-api-token', 'Dropbox short-lived token', ['dropbox'], r`sl\.[a-z0-9_=-]{135}`),
  key('lob-api-key', 'Lob API key', ['lob'], '(?:live|test)_[a-f0-9]{35}', undefined, { test: /^test_/i }),
  key('lob-pub-api-key', 'Lob publishable API key', ['lob'], '(?:test|live)_pub_[a-f0-9]{31}', undefined, {
    test: /^test_/i,
  }),
  tok('square-access-token', 'Square access token', ['sq0atp-', 'eaaa'], r`\b((?:EAAA|sq0atp-)[\w-]{22,60})${END}`, 2),
  key(
    'plaid-api-token',
    'Plaid access token',
    ['plaid'],
    `access-(?:sandbox|development|production)-${UUID}`,
    undefined,
    { test: /^access-sandbox-/i },
  ),
  key('plaid-client-id', 'Plaid client ID', ['plaid'], '[a-z0-9]{24}', 3.5, ID),
  key('plaid-secret-key', 'Plaid secret', ['plaid'], '[a-z0-9]{30}', 3.5, SECRET),
  key('coinbase-access-token', 'Coinbase access token', ['coinbase'], '[a-z0-9_-]{64}'),
  key('kraken-access-token', 'Kraken API key', ['kraken'], '[a-z0-9/=_+-]{80,90}'),
  key('kucoin-access-token', 'KuCoin API key', ['kucoin'], '[a-f0-9]{24}'),
  key('kucoin-secret-key', 'KuCoin API secret', ['kucoin'], UUID, undefined, SECRET),
  // The two Bittrex keys have one shape: a key named as a secret is the secret.
  key('bittrex-secret-key', 'Bittrex API secret', ['bittrex'], '[a-z0-9]{32}', undefined, {
    ...SECRET,
    keyHint: /secret/i,
  }),
  key('bittrex-access-key', 'Bittrex API key', ['bittrex'], '[a-z0-9]{32}'),
  key('gocardless-api-token', 'GoCardless access token', ['gocardless'], 'live_[a-z0-9_=-]{40}'),
  // Flutterwave's published formats are all test-mode ones.
  tok(
    'flutterwave-encryption-key',
    'Flutterwave encryption key',
    ['flwseck_test'],
    r`\bFLWSECK_TEST-[a-hA-H0-9]{12}\b`,
    2,
    {
      kind: 'encryptionKey',
      test: TEST,
    },
  ),
  tok('flutterwave-public-key', 'Flutterwave public key', ['flwpubk_test'], r`\bFLWPUBK_TEST-[a-hA-H0-9]{32}-X\b`, 2, {
    ...ID,
    test: TEST,
  }),
  tok('flutterwave-secret-key', 'Flutterwave secret key', ['flwseck_test'], r`\bFLWSECK_TEST-[a-hA-H0-9]{32}-X\b`, 2, {
    test: TEST,
  }),
  tok('duffel-api-token', 'Duffel API token', ['duffel_'], r`\bduffel_(?:test|live)_[\w=-]{43}(?![\w=-])`, 2, {
    test: /^duffel_test_/,
  }),
  tok('shippo-api-token', 'Shippo API token', ['shippo_'], r`\b(shippo_(?:live|test)_[a-fA-F0-9]{40})${END}`, 2, {
    test: /^shippo_test_/,
  }),
  tok('easypost-api-token', 'EasyPost API key', ['ezak'], r`\bEZAK[a-zA-Z0-9]{54}\b`, 2),
  tok('easypost-test-api-token', 'EasyPost test API key', ['eztk'], r`\bEZTK[a-zA-Z0-9]{54}\b`, 2, { test: /^EZTK/ }),
  key('finicity-api-token', 'Finicity API token', ['finicity'], '[a-f0-9]{32}'),
  key('finicity-client-secret', 'Finicity client secret', ['finicity'], '[a-z0-9]{20}', undefined, SECRET),
  key('finnhub-access-token', 'Finnhub access token', ['finnhub'], '[a-z0-9]{20}'),
  key('adobe-client-id', 'Adobe client ID', ['adobe'], '[a-f0-9]{32}', 2, ID),
  tok('adobe-client-secret', 'Adobe client secret', ['p8e-'], r`\b(p8e-[a-zA-Z0-9]{32})${END}`, 2, SECRET),
];
