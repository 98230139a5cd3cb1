import { Type, type Static } from '@sinclair/typebox';
import { SeveritySchema, VerdictSchema } from '../../shared/schemas/analysis.js';
import { ConnectorId } from '../bridge/index.js';
import { Ok, StringEnum } from '../../shared/schemas/common.js';

/**
 * POST /v1/security/validate (secret scanning and risky configuration) and
 * POST /v1/security/secrets/check (secret references). No answer ever holds a
 * secret value: findings show a short prefix and the length.
 */

/**
 * What a leaked secret is: a provider's own kind for the common ones, a category (apiToken, clientSecret, …) for the
 * long tail of the provider table, whose `ruleId` (`awp/<gitleaks id>`) names the format.
 */
export const SECRET_KINDS = [
  'awsAccessKeyId',
  'awsSecretAccessKey',
  'awsAccountId',
  'gcpServiceAccountKey',
  'privateKey',
  'npmToken',
  'basicAuthCredentials',
  'slackToken',
  'slackWebhook',
  'sendgridApiKey',
  'shopifyToken',
  'githubToken',
  'openaiApiKey',
  'anthropicApiKey',
  'linearApiKey',
  'onePasswordToken',
  'databaseConnectionString',
  'stripeKey',
  'jwt',
  'googleApiKey',
  'gitlabToken',
  // Categories for the rest of the provider table: the finding's ruleId and message name the provider.
  'apiToken',
  'clientSecret',
  'clientId',
  'webhookUrl',
  'password',
  'encryptionKey',
  'kubernetesSecret',
  'genericHighEntropy',
  'otherSecret',
] as const;
export type SecretKind = (typeof SECRET_KINDS)[number];

/** What a risky configuration is. */
export const CONFIG_KINDS = [
  'dockerfileRootUser',
  'dockerfileLatestTag',
  'actionsScriptInjection',
  'actionsPullRequestTargetCheckout',
] as const;
export type ConfigKind = (typeof CONFIG_KINDS)[number];

export const FINDING_CATEGORIES = ['secret', 'config'] as const;

/** Why a match was not reported (counted in `suppressed`, never listed). */
export const SUPPRESSION_REASONS = ['placeholder', 'fixture', 'reference'] as const;
export type SuppressionReason = (typeof SUPPRESSION_REASONS)[number];

export const SecurityValidateRequest = Type.Object(
  {
    files: Type.Record(Type.String({ minLength: 1, maxLength: 1000 }), Type.String(), {
      description: 'path → contents',
      maxProperties: 5000,
    }),
  },
  { $id: 'SecurityValidateRequest', additionalProperties: true },
);
export type SecurityValidateRequest = Static<typeof SecurityValidateRequest>;

export const SecurityFinding = Type.Object({
  category: StringEnum(FINDING_CATEGORIES),
  ruleId: Type.String({
    description:
      "The rule that found it: a secretlint rule id, or awp/… for the service's own (for the provider table, " +
      "awp/ and gitleaks' id for the same key format, e.g. awp/gcp-api-key)",
  }),
  kind: StringEnum([...SECRET_KINDS, ...CONFIG_KINDS]),
  file: Type.String(),
  line: Type.Integer({ description: 'From 1' }),
  column: Type.Integer({ description: 'From 1' }),
  severity: SeveritySchema,
  message: Type.String(),
  evidence: Type.Object(
    {
      prefix: Type.String({ description: 'secret: its first characters (at most 4, and at most a quarter of it)' }),
      length: Type.Integer({ description: 'secret: its length in characters' }),
      snippet: Type.Optional(Type.String({ description: 'config: the offending expression or instruction' })),
    },
    { description: 'Redacted: a secret is never shown, only where it is, how it starts and how long it is' },
  ),
});
export type SecurityFinding = Static<typeof SecurityFinding>;

export const SecurityValidateResult = Ok(
  {
    verdict: VerdictSchema,
    findings: Type.Array(SecurityFinding, { description: 'At most 100 per file, secrets first' }),
    omitted: Type.Integer({ description: 'Findings past the first 100 of a file: counted, not listed' }),
    scanned: Type.Object({ files: Type.Integer(), bytes: Type.Integer() }),
    suppressed: Type.Object(
      { placeholder: Type.Integer(), fixture: Type.Integer(), reference: Type.Integer() },
      {
        description:
          'Matches not reported, by reason: placeholders and examples, test fixtures named as such, env: and ' +
          'other references (lines under a secretlint-disable comment are not counted)',
      },
    ),
    scanErrors: Type.Array(Type.Object({ file: Type.String(), message: Type.String() }), {
      description: 'Files the scanner could not check, or not wholly (the verdict is at least warn)',
    }),
    rules: Type.Object({
      secretlint: Type.String({ description: 'Version of @secretlint/secretlint-rule-preset-recommend' }),
      ruleIds: Type.Array(Type.String()),
    }),
  },
  'SecurityValidateResult',
);
export type SecurityValidateResult = Static<typeof SecurityValidateResult>;

export const SECRET_REF_STATUSES = ['resolvable', 'missing', 'outOfBounds', 'literal', 'malformed'] as const;
export type SecretRefStatus = (typeof SECRET_REF_STATUSES)[number];

export const SecretsCheckRequest = Type.Object(
  {
    refs: Type.Optional(
      Type.Array(
        Type.Object(
          {
            name: Type.String({ minLength: 1, maxLength: 200 }),
            ref: Type.String({
              maxLength: 2000,
              description: 'What you would send: `env:NAME`; a literal value is reported `literal`, never echoed',
            }),
          },
          { additionalProperties: true },
        ),
        { minItems: 1, maxItems: 200 },
      ),
    ),
    connectorId: Type.Optional(ConnectorId),
  },
  {
    $id: 'SecretsCheckRequest',
    additionalProperties: true,
    description: 'refs, a connectorId whose references are checked, or both',
  },
);
export type SecretsCheckRequest = Static<typeof SecretsCheckRequest>;

export const SecretRefResult = Type.Object({
  name: Type.String({
    description: 'Your name for it, or the connector field (`credential.tokenRef`, `scopes/0/tokenRefs/1`)',
  }),
  ref: Type.Union([Type.String(), Type.Null()], {
    description: 'The reference when it has the env:NAME shape; null otherwise (it may be a secret)',
  }),
  variable: Type.Union([Type.String(), Type.Null()], {
    description: 'The environment variable to set (resolvable and missing)',
  }),
  status: StringEnum(SECRET_REF_STATUSES),
  message: Type.String(),
});

export const SecretsCheckResult = Ok(
  {
    allResolvable: Type.Boolean(),
    connectorId: Type.Union([Type.String(), Type.Null()]),
    prefix: Type.String({ description: 'SECRET_ENV_PREFIX: the variables a reference may name' }),
    results: Type.Array(SecretRefResult),
  },
  'SecretsCheckResult',
);
