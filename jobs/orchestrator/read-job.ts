import type { Static, TSchema } from '@sinclair/typebox';
import { UnrecoverableError } from 'bullmq';
import { readAs } from '../../shared/validation.js';

/**
 * A dequeued job's data, checked against its schema. A job whose data does
 * not match was written by something else (or another version): retrying
 * cannot fix it, so it fails at once, naming the field that is wrong.
 */
export function readJob<S extends TSchema>(schema: S, data: unknown, what: string): Static<S> {
  try {
    return readAs(schema, data, what);
  } catch (err) {
    throw new UnrecoverableError((err as Error).message);
  }
}
