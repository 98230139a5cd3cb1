import type { Context, Next } from 'koa';
import { AppError, invalidPayload } from '../../shared/errors.js';

const WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

/**
 * Reads a JSON body with a hard size limit. Malformed JSON is `400
 * invalidPayload`, an oversized body `413`. Every body is JSON whatever the
 * Content-Type says (curl's default form type included); an empty body reads
 * as `{}` so optional-object routes work without one.
 */
export function jsonBody(maxBytes: number) {
  return async (ctx: Context, next: Next) => {
    if (!WITH_BODY.has(ctx.method)) return next();
    const declared = Number(ctx.get('content-length') || 0);
    if (declared > maxBytes) throw new AppError('payloadTooLarge', `Body exceeds ${maxBytes} bytes`);
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of ctx.req) {
      size += (chunk as Buffer).length;
      if (size > maxBytes) throw new AppError('payloadTooLarge', `Body exceeds ${maxBytes} bytes`);
      chunks.push(chunk as Buffer);
    }
    const text = Buffer.concat(chunks).toString('utf8');
    ctx.state.rawBody = text;
    if (text.trim() === '') {
      ctx.state.body = {};
    } else {
      try {
        ctx.state.body = JSON.parse(text);
      } catch (err) {
        throw invalidPayload(`Malformed JSON: ${(err as Error).message}`);
      }
    }
    await next();
  };
}
