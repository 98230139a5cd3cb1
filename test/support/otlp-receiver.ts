import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

/** One exported span, flattened: its ids, name, kind, attributes and its process's resource attributes. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  resource: Record<string, unknown>;
  status: { code?: number };
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: OtlpValue[] };
}
type OtlpAttributes = Array<{ key: string; value: OtlpValue }> | undefined;

const valueOf = (v: OtlpValue): unknown =>
  v.stringValue ??
  (v.intValue !== undefined ? Number(v.intValue) : undefined) ??
  v.doubleValue ??
  v.boolValue ??
  v.arrayValue?.values?.map(valueOf);

const attributesOf = (list: OtlpAttributes): Record<string, unknown> =>
  Object.fromEntries((list ?? []).map((a) => [a.key, valueOf(a.value)]));

/**
 * A local OTLP/HTTP receiver: takes `POST /v1/traces` in OTLP's JSON encoding (what
 * @opentelemetry/exporter-trace-otlp-http sends: hex ids, attributes as key/value lists), answers 200 and keeps
 * every span it decoded. Anything else (another path, protobuf) is refused 415, and counted, so a test sees it.
 */
export async function startOtlpReceiver() {
  const spans: ReceivedSpan[] = [];
  const refused: string[] = [];
  let exports = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const type = String(req.headers['content-type'] ?? '');
      if (req.method !== 'POST' || req.url !== '/v1/traces' || !type.startsWith('application/json')) {
        refused.push(`${req.method} ${req.url} ${type}`);
        res.writeHead(415).end();
        return;
      }
      let raw = Buffer.concat(chunks);
      if (req.headers['content-encoding'] === 'gzip') raw = gunzipSync(raw);
      const body = JSON.parse(raw.toString('utf8')) as {
        resourceSpans?: Array<{
          resource?: { attributes?: OtlpAttributes };
          scopeSpans?: Array<{ spans?: Array<Record<string, unknown>> }>;
        }>;
      };
      exports++;
      for (const rs of body.resourceSpans ?? []) {
        const resource = attributesOf(rs.resource?.attributes);
        for (const ss of rs.scopeSpans ?? [])
          for (const s of ss.spans ?? [])
            spans.push({
              traceId: String(s.traceId),
              spanId: String(s.spanId),
              parentSpanId: String(s.parentSpanId ?? ''),
              name: String(s.name),
              kind: Number(s.kind),
              attributes: attributesOf(s.attributes as OtlpAttributes),
              resource,
              status: (s.status as { code?: number }) ?? {},
            });
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    refused,
    exports: () => exports,
    stop: () => {
      server.closeAllConnections();
      return new Promise((r) => server.close(r));
    },
  };
}
