import type { Context, Next } from 'koa';
import { AppError, invalidPayload } from '../../shared/errors.js';

const WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);
export const FORM = /^\s*application\/x-www-form-urlencoded\b/i;

/**
 * Deepest nesting of objects and arrays a body may have. JSON.parse itself
 * copes with any depth, but what handles the value next (JSON.stringify into
 * jsonb, canonical JSON for idempotency, validation) recurses and overflows
 * the stack at a few thousand levels; no request of this API needs more
 * than a handful.
 */
export const MAX_JSON_DEPTH = 64;
const MAX_PATH_CHARS = 300;

/** One open object or array of the scan: the key (or index) of the member being read in it. */
interface Frame {
  array: boolean;
  key: string | number;
}

function segment(text: string, start: number, end: number): string {
  let key: string;
  try {
    key = JSON.parse(text.slice(start, end + 1)) as string;
  } catch {
    key = text.slice(start + 1, end);
  }
  return key
    .replace(/~/g, '~0')
    .replace(/\//g, '~1')
    .replace(/[\u0000-\u001f\ud800-\udfff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function pointer(frames: Frame[]): string {
  let path = '';
  for (const f of frames) {
    path += `/${f.key}`;
    if (path.length > MAX_PATH_CHARS) return `${path.slice(0, MAX_PATH_CHARS)}…`;
  }
  return path || '/';
}

/**
 * Where `text` first nests deeper than `max` (a JSON pointer to the value
 * that opens level max+1), or null. One pass over the characters, before
 * anything is parsed, so the check costs no recursion either; malformed text
 * is left for JSON.parse to report.
 */
export function tooDeepAt(text: string, max = MAX_JSON_DEPTH): string | null {
  const frames: Frame[] = [];
  let inString = false;
  let escaped = false;
  let stringStart = -1;
  let lastString: [number, number] | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (escaped) escaped = false;
      else if (c === 0x5c /* \ */) escaped = true;
      else if (c === 0x22 /* " */) {
        inString = false;
        lastString = [stringStart, i];
      }
      continue;
    }
    const top = frames[frames.length - 1];
    if (c === 0x22) {
      inString = true;
      stringStart = i;
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (frames.length >= max) return pointer(frames);
      frames.push({ array: c === 0x5b, key: c === 0x5b ? 0 : '' });
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      frames.pop();
    } else if (c === 0x3a /* : */ && top && !top.array && lastString) {
      top.key = segment(text, lastString[0], lastString[1]);
    } else if (c === 0x2c /* , */ && top?.array) {
      top.key = (top.key as number) + 1;
    }
  }
  return null;
}

/**
 * Reads a JSON body with a hard size limit. Malformed JSON is `400
 * invalidPayload`, an oversized body `413`, a body nested deeper than
 * MAX_JSON_DEPTH `400` naming where. Every body is JSON whatever the
 * Content-Type says (curl's default form type included); an empty body reads
 * as `{}` so optional-object routes work without one. A form-encoded body that is not JSON is left to the route:
 * one that takes forms (`formBody`, provider callbacks) reads its fields, any other refuses it as malformed JSON.
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
    ctx.state.bodyBytes = size; // a route's own limit is checked against it (mount.ts), with no second count
    if (text.trim() === '') {
      ctx.state.body = {};
    } else {
      const deep = tooDeepAt(text);
      if (deep !== null) {
        const message = `nests deeper than ${MAX_JSON_DEPTH} levels`;
        throw invalidPayload(`Request body is invalid: ${deep} ${message}`, [
          { path: deep, message, keyword: 'maxDepth' },
        ]);
      }
      try {
        ctx.state.body = JSON.parse(text);
      } catch (err) {
        const refused = invalidPayload(`Malformed JSON: ${(err as Error).message}`);
        // A form body is read by the route when it takes forms (RouteSpec.formBody), refused as JSON otherwise.
        if (!FORM.test(ctx.get('content-type'))) throw refused;
        ctx.state.body = undefined;
        ctx.state.bodyRefused = refused;
      }
    }
    await next();
  };
}
