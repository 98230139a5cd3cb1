// Keys, credential rotation, dashboard sessions and metrics access: config schema properties.
import { Type } from '@sinclair/typebox';

export const securityConfig = {
  SIGNING_KEY: Type.Optional(
    Type.String({
      pattern: '^[A-Za-z0-9+/]{43}=$',
      description:
        'Ed25519 signing key of every process: base64 of the 32-byte private seed (`openssl rand -base64 ' +
        '32`); unset: generated once and kept in Postgres',
    }),
  ),
  AWP_MASTER_KEY: Type.Optional(
    Type.String({
      pattern: '^[A-Za-z0-9+/]{43}=$',
      description:
        'Master key of envelope encryption (base64 of 32 bytes, `openssl rand -base64 32`): wraps each ' +
        "account's data key; required when NODE_ENV=production, generated under DATA_DIR by `npm start` " +
        'otherwise. A secret: never logged',
    }),
  ),
  AWP_MASTER_KEY_PREVIOUS: Type.Optional(
    Type.String({
      pattern: '^[A-Za-z0-9+/]{43}=$',
      description:
        'The master key before the last `npm run master-key:rotate`, while processes still running with it ' +
        'are replaced; unset otherwise',
    }),
  ),
  CREDENTIAL_ROTATION_GRACE_HOURS: Type.Number({
    minimum: 0,
    maximum: 8760,
    default: 24,
    description: 'Hours the previous version of a rotated vault credential stays usable (`cred:NAME@version`)',
  }),
  SESSION_TTL_HOURS: Type.Number({
    exclusiveMinimum: 0,
    maximum: 720,
    default: 12,
    description: 'Lifetime of a dashboard sign-in session (the cookie and its row); signing in again starts a new one',
  }),
  SIGN_IN_ATTEMPTS_PER_15_MIN: Type.Integer({
    minimum: 1,
    default: 10,
    description:
      'Dashboard sign-in attempts allowed per email and, separately, per client IP in 15 minutes (429 after)',
  }),
  METRICS_PORT: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 65535,
      description:
        'Port (on HOST) where a worker, delivery or clock process serves GET /metrics; unset: none (the web ' +
        'process serves /metrics on its own port)',
    }),
  ),
  METRICS_TOKEN: Type.Optional(
    Type.String({
      minLength: 16,
      description:
        'Bearer token a Prometheus scraper may use for GET /metrics besides an admin token; unset: admin tokens only',
    }),
  ),
};
