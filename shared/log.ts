import pino, { type DestinationStream, type Logger } from 'pino';
import { redactSecrets } from './secrets.js';
import { traceFields } from './telemetry/spans.js';

/**
 * Paths pino blanks before a line is written. Secrets must never reach logs,
 * so anything that can carry one (auth headers, passwords, secrets, tokens,
 * API keys) is censored wherever it sits in the first levels of an object.
 */
const REDACT = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  '*.password',
  '*.secret',
  '*.token',
  '*.apiKey',
  '*.placesProviderApiKey',
  '*.activationToken',
  '*.AWP_MASTER_KEY',
  '*.AWP_MASTER_KEY_PREVIOUS',
  'AWP_MASTER_KEY',
  'password',
  'secret',
  'token',
  'authorization',
];

export function createLogger(
  level = 'info',
  base: Record<string, unknown> = {},
  destination?: DestinationStream,
): Logger {
  const options = {
    level,
    base: { service: 'awp', ...base },
    redact: { paths: REDACT, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
    // The active span's traceId and spanId on each line written inside one (nothing while tracing is off).
    mixin: traceFields,
    // Paths cannot know where a resolved secret ends up (an upstream error message, say): mask its value in the
    // finished line.
    hooks: { streamWrite: (line: string) => redactSecrets(line) },
  };
  return destination ? pino(options, destination) : pino(options);
}

export type { Logger };
