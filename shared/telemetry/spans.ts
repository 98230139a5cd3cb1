import {
  context,
  isSpanContextValid,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import { ATTR_ERROR_TYPE } from '@opentelemetry/semantic-conventions';

export { SpanKind, type Attributes, type Context, type Span };

/*
 * The service's spans, through the OpenTelemetry API only. The tracer is set by `startTelemetry` (start.ts) when
 * OTEL_EXPORTER_OTLP_ENDPOINT is set; until then (and always when it is unset) every helper here returns after one
 * null check, so the hot paths (each query, each Redis command, each log line) pay nothing more.
 */

let tracer: Tracer | null = null;

/** Set by start.ts (null again when it stops). */
export function useTracer(t: Tracer | null): void {
  tracer = t;
}

/** True while traces are being recorded in this process. */
export const tracingOn = (): boolean => tracer !== null;

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  /** The parent: a context taken from a `traceparent` (`contextOf`); the active one by default. */
  parent?: Context;
  /** A new trace rather than a child of the active span (then `links` usually names the span it came from). */
  root?: boolean;
  links?: Link[];
}

/**
 * Runs `fn` inside a new span (active for everything `fn` awaits), ended when `fn` settles. A thrown error marks the
 * span failed with `error.type` only: error messages can quote values and secrets, so none is recorded.
 */
export async function inSpan<T>(
  name: string,
  opts: SpanOptions,
  fn: (span: Span | undefined) => Promise<T>,
): Promise<T> {
  if (!tracer) return fn(undefined);
  const parent = opts.parent ?? context.active();
  const span = tracer.startSpan(
    name,
    { kind: opts.kind ?? SpanKind.INTERNAL, attributes: opts.attributes, root: opts.root, links: opts.links },
    parent,
  );
  try {
    return await context.with(trace.setSpan(parent, span), () => fn(span));
  } catch (err) {
    failSpan(span, err);
    throw err;
  } finally {
    span.end();
  }
}

/**
 * A span for one call at the bottom of the stack (a query, a Redis command), only inside a recorded span: a call
 * with no span around it (BullMQ polling, a pool's keep-alive) would otherwise make a trace of its own. `describe`
 * (its name and attributes) runs only then: every statement and command passes here, traced or not.
 */
export function childSpan(kind: SpanKind, describe: () => { name: string; attributes: Attributes }): Span | undefined {
  if (!tracer) return undefined;
  const active = trace.getActiveSpan();
  if (!active?.isRecording()) return undefined;
  const { name, attributes } = describe();
  return tracer.startSpan(name, { kind, attributes });
}

/** Marks `span` failed, naming the error's kind (its code or class), never its message. */
export function failSpan(span: Span, err: unknown, type?: string): void {
  const e = err as { code?: unknown; name?: unknown } | null;
  const code = typeof e?.code === 'string' && /^[A-Za-z0-9_.-]{1,64}$/.test(e.code) ? e.code : undefined;
  span.setAttribute(ATTR_ERROR_TYPE, type ?? code ?? (typeof e?.name === 'string' ? e.name : 'Error'));
  span.setStatus({ code: SpanStatusCode.ERROR });
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/**
 * The context a W3C `traceparent` names (https://www.w3.org/TR/trace-context/#traceparent-header), as a remote
 * parent; the root context when it is absent or malformed (the version `ff`, an all-zero id, extra fields on
 * version 00). Written here rather than with the SDK's propagator so the API alone is needed to read one.
 */
export function contextOf(traceparent: unknown): Context {
  if (!tracer || typeof traceparent !== 'string') return ROOT_CONTEXT;
  const m = TRACEPARENT.exec(traceparent.trim());
  if (!m || m[1] === 'ff' || (m[1] === '00' && m[5])) return ROOT_CONTEXT;
  const spanContext = { traceId: m[2]!, spanId: m[3]!, traceFlags: Number.parseInt(m[4]!, 16) & 1, isRemote: true };
  return isSpanContextValid(spanContext) ? trace.setSpanContext(ROOT_CONTEXT, spanContext) : ROOT_CONTEXT;
}

/** The active span as a W3C `traceparent`, to hand on (job data, an outbound webhook); undefined when none. */
export function currentTraceparent(): string | undefined {
  if (!tracer) return undefined;
  const sc = trace.getActiveSpan()?.spanContext();
  if (!sc || !isSpanContextValid(sc)) return undefined;
  return `00-${sc.traceId}-${sc.spanId}-0${sc.traceFlags & 1}`;
}

/** A link to the active span, for a span that starts a trace of its own because of it. */
export function linkToActive(): Link[] {
  const sc = tracer ? trace.getActiveSpan()?.spanContext() : undefined;
  return sc && isSpanContextValid(sc) ? [{ context: sc }] : [];
}

/**
 * pino mixin: the active span's trace and span ids on every log line written inside it. A new object each time:
 * pino merges the line's own fields into it.
 */
export function traceFields(): { traceId?: string; spanId?: string } {
  if (!tracer) return {};
  const sc = trace.getActiveSpan()?.spanContext();
  return sc && isSpanContextValid(sc) ? { traceId: sc.traceId, spanId: sc.spanId } : {};
}
