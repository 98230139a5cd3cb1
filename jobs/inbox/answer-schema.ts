/**
 * The answer form of an inbox item, as JSON Schema (2020-12), built from what the waiting domain declares it accepts:
 * its resume actions and their inputs (jobs/domain.ts `ResumeAction`), the choices its waitpoint offers and the proof
 * items its mission requires. Never guessed from the kind: a domain that declares an action gets a branch for it.
 * Pure: no I/O.
 */
import { FILE_TYPES, MAX_FILE_BYTES, type ItemKind } from './schemas.js';

/** What the inbox reads of a declared resume action (structurally jobs/domain.ts `ResumeAction`). */
export interface DeclaredAction {
  description: string;
  input?: unknown;
  choosesItem?: boolean;
}

type Json = Record<string, unknown>;

export interface AnswerForm {
  schema: Json;
  actions: Array<{ action: string | null; description: string; approves: boolean | null }>;
}

/** A plain copy of a TypeBox schema (its symbols and `$id`s dropped), safe to edit and to publish. */
const plain = (schema: unknown): Json =>
  JSON.parse(JSON.stringify(schema ?? {}), (k, v) => (k === '$id' ? undefined : v));

/** One proof item: a note, or a file in base64 (checked again when it arrives: size, type, bytes). */
export function proofItemSchema(item: string): Json {
  return {
    title: item,
    oneOf: [
      {
        type: 'object',
        required: ['note'],
        additionalProperties: false,
        properties: { note: { type: 'string', minLength: 1, maxLength: 4000 } },
      },
      {
        type: 'object',
        required: ['file'],
        additionalProperties: false,
        properties: {
          file: {
            type: 'object',
            required: ['name', 'contentType', 'contentBase64'],
            additionalProperties: false,
            properties: {
              name: { type: 'string', minLength: 1, maxLength: 200 },
              contentType: { type: 'string', enum: [...FILE_TYPES] },
              contentBase64: {
                type: 'string',
                minLength: 1,
                // base64 of MAX_FILE_BYTES, rounded up to whole groups of four
                maxLength: Math.ceil(MAX_FILE_BYTES / 3) * 4,
                contentEncoding: 'base64',
                pattern: '^[A-Za-z0-9+/]*={0,2}$',
              },
            },
          },
        },
      },
    ],
  };
}

/** The mission outcome's `proof` narrowed to the mission's items: each a note or a file; required for a success. */
function withProof(input: Json, proofReq: string[]): Json {
  const outcome = (input.properties as Json | undefined)?.outcome as Json | undefined;
  if (!outcome?.properties) return input;
  const props = outcome.properties as Json;
  props.proof = {
    type: 'object',
    description: 'Proof items: each a note or a file (base64, at most 5 MiB decoded)',
    properties: Object.fromEntries(proofReq.map((item) => [item, proofItemSchema(item)])),
    additionalProperties: proofItemSchema('extra proof item'),
  };
  if (proofReq.length > 0)
    outcome.allOf = [
      {
        if: { properties: { status: { const: 'confirmedSuccess' } }, required: ['status'] },
        then: { required: ['proof'], properties: { proof: { required: proofReq } } },
      },
    ];
  return input;
}

export interface FormSubject {
  kind: ItemKind;
  domain: string;
  /** The offered choices' itemIds (a choice). */
  choices: string[];
  /** The mission's required proof items (a mission). */
  proofReq: string[];
  /** Whether an answer with this action approves (the engine's rule, jobs/approval-gates.ts). */
  approves: (action: string | undefined) => boolean;
}

/**
 * One branch per declared action: `action` fixed to its name, `itemId` one of the offered choices when the action
 * chooses one, `data` its declared input. A waitpoint whose domain declares no action takes the engine's own answer:
 * a choice's itemId, or an approval's `approved`.
 */
export function answerForm(subject: FormSubject, declared: Record<string, DeclaredAction>): AnswerForm {
  const branches: Json[] = [];
  const actions: AnswerForm['actions'] = [];
  const itemIdSchema = { type: 'string', enum: subject.choices, description: 'The itemId of the chosen candidate' };
  for (const [name, action] of Object.entries(declared)) {
    // A choice is answered by the actions that choose one of its candidates; an approval by the others.
    if (subject.kind === 'choice' && !action.choosesItem) continue;
    if (subject.kind !== 'choice' && action.choosesItem) continue;
    const properties: Json = { action: { const: name, description: action.description } };
    const required = ['action'];
    if (action.choosesItem) {
      properties.itemId = itemIdSchema;
      required.push('itemId');
    }
    if (action.input) {
      const input = plain(action.input);
      properties.data = subject.kind === 'mission' ? withProof(input, subject.proofReq) : input;
      if (((input.required as string[] | undefined) ?? []).length > 0) required.push('data');
    }
    branches.push({ type: 'object', title: name, required, properties, additionalProperties: false });
    const approves = subject.kind === 'approval' ? subject.approves(name) : null;
    actions.push({ action: name, description: action.description, approves });
  }
  if (branches.length === 0 && subject.kind === 'choice') {
    branches.push({
      type: 'object',
      title: 'choose',
      required: ['itemId'],
      properties: { itemId: itemIdSchema },
      additionalProperties: false,
    });
    actions.push({ action: null, description: 'Choose one of the candidates', approves: null });
  }
  if (branches.length === 0 && subject.kind === 'approval') {
    branches.push({
      type: 'object',
      title: 'approve or refuse',
      required: ['approved'],
      properties: { approved: { type: 'boolean', description: 'true approves; false refuses (fails closed)' } },
      additionalProperties: false,
    });
    actions.push({ action: null, description: 'Approve (approved: true) or refuse (approved: false)', approves: null });
  }
  return {
    schema: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      title: `Answer to a ${subject.domain} ${subject.kind}`,
      ...(branches.length === 1 ? branches[0] : { oneOf: branches }),
    },
    actions,
  };
}
