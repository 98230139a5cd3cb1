import { Type } from '@sinclair/typebox';

/** The template types are the engine's (jobs/domain.ts): a domain module declares its templates. */
export type { TemplateRequest, WorkflowTemplate } from '../domain.js';

/** Documents a template may carry for an audit. */
export const TemplateDocs = Type.Optional(Type.Array(Type.String({ maxLength: 100_000 }), { maxItems: 50 }));

/** A non-empty string field of the input, else the fallback. */
export const textOr = (v: unknown, fallback: string) => (typeof v === 'string' && v.trim() ? v : fallback);

/** The client's metadata object of the input, or an empty one. */
export const metadataOf = (input: Record<string, unknown>) =>
  input.metadata && typeof input.metadata === 'object' ? (input.metadata as Record<string, unknown>) : {};
