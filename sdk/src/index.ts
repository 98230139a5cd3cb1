/** The awp client SDK: `createAwpClient`, typed from the service's OpenAPI document (./schema.d.ts). */
export {
  createAwpClient,
  isRunResult,
  type AwpClient,
  type AwpClientOptions,
  type ResumeRequest,
  type RunAccepted,
  type RunCanceled,
  type RunDetail,
  type RunListQuery,
  type RunResult,
  type RunResumed,
  type RunSummary,
  type Schemas,
  type SubmitOptions,
  type SubmitRequest,
} from './client.js';
export { AwpError, parseRetryAfter, type AwpErrorCode } from './errors.js';
export { paginate, type Page } from './paginate.js';
export { retryingFetch, type RetryInfo, type RetryOptions } from './retry.js';
export { followEvents, type RunEvent, type StreamOptions } from './stream.js';
export { AwpWebhookError, verifyWebhook, type WebhookBody, type WebhookEvent } from './webhooks.js';
export type { components, operations, paths, webhooks } from './schema.js';
