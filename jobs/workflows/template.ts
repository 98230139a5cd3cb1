import { Type, type TSchema } from '@sinclair/typebox';

/**
 * The orchestrator request a template runs: a request with its domain route forced, plus the other body fields it sets.
 */
export type TemplateRequest = { request: string; domainRoute: string[]; metadata: Record<string, unknown> } & Record<
  string,
  unknown
>;

/** A named, schema-checked recipe for a run; each belongs to the domain module that owns its first step. */
export interface WorkflowTemplate {
  templateId: string;
  domains: string[];
  description: string;
  /** TypeBox schema (with $id, listed in /v1/schemas) of the template's input. */
  input: TSchema;
  toRequest(input: Record<string, unknown>): TemplateRequest;
}

/** Documents a template may carry for an audit. */
export const TemplateDocs = Type.Optional(Type.Array(Type.String({ maxLength: 100_000 }), { maxItems: 50 }));

/** A non-empty string field of the input, else the fallback. */
export const textOr = (v: unknown, fallback: string) => (typeof v === 'string' && v.trim() ? v : fallback);

/** The client's metadata object of the input, or an empty one. */
export const metadataOf = (input: Record<string, unknown>) =>
  input.metadata && typeof input.metadata === 'object' ? (input.metadata as Record<string, unknown>) : {};
