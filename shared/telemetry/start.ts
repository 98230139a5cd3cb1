import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { rememberSecret } from '../secrets.js';
import { SERVICE_VERSION } from '../version.js';
import { useTracer } from './spans.js';
import { traceRedisCommands } from './redis.js';

/** What `startTelemetry` hands back: stopped last (lifecycle stops parts in reverse), it flushes what is left. */
export interface Telemetry {
  name: 'telemetry';
  stop(): Promise<void>;
}

/** How long a shutdown waits for the last batch to reach the collector. */
const FLUSH_TIMEOUT_MS = 3_000;

/** `key=value,key2=value2` (OTEL_EXPORTER_OTLP_HEADERS, values percent-encoded as the spec allows). */
export function parseOtlpHeaders(raw: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of (raw ?? '').split(',')) {
    const at = pair.indexOf('=');
    if (at <= 0) continue;
    const key = pair.slice(0, at).trim();
    const value = decodeURIComponent(pair.slice(at + 1).trim());
    if (key && value) headers[key] = value;
  }
  return headers;
}

/**
 * Starts tracing for this process when OTEL_EXPORTER_OTLP_ENDPOINT is set: a tracer provider with a batch processor
 * exporting OTLP/HTTP JSON to `<endpoint>/v1/traces`, the AsyncLocalStorage context manager, and the Redis command
 * spans. Returns null and loads nothing when the variable is unset: the SDK is imported here, on demand, so a
 * process without a collector keeps the API's no-op and none of the SDK's memory.
 *
 * Registered globally (the API's tracer provider and context manager): one per process. `stop` unregisters both, so
 * a test may start and stop it in a process that goes on.
 */
export async function startTelemetry(config: Config, processName: string, log?: Logger): Promise<Telemetry | null> {
  const endpoint = config.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (!endpoint) return null;
  const [api, { TracerProvider, BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler }] = await Promise.all(
    [import('@opentelemetry/api'), import('@opentelemetry/sdk-trace')],
  );
  const [{ AsyncLocalStorageContextManager }, { OTLPTraceExporter }, { resourceFromAttributes }, semconv] =
    await Promise.all([
      import('@opentelemetry/context-async-hooks'),
      import('@opentelemetry/exporter-trace-otlp-http'),
      import('@opentelemetry/resources'),
      import('@opentelemetry/semantic-conventions'),
    ]);
  const headers = parseOtlpHeaders(config.OTEL_EXPORTER_OTLP_HEADERS);
  for (const value of Object.values(headers)) rememberSecret(value, 'lasting'); // a vendor key never reaches a log
  const exporter = new OTLPTraceExporter({ url: `${endpoint.replace(/\/+$/, '')}/v1/traces`, headers });
  const provider = new TracerProvider({
    resource: resourceFromAttributes({
      [semconv.ATTR_SERVICE_NAME]: config.OTEL_SERVICE_NAME,
      [semconv.ATTR_SERVICE_VERSION]: SERVICE_VERSION,
      'awp.process': processName,
      'process.pid': process.pid,
    }),
    sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(config.OTEL_TRACES_SAMPLER_RATIO) }),
    spanProcessors: [new BatchSpanProcessor({ exporter })],
  });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  api.context.setGlobalContextManager(contextManager);
  api.trace.setGlobalTracerProvider(provider);
  useTracer(provider.getTracer('awp', SERVICE_VERSION));
  const untraceRedis = traceRedisCommands();
  log?.info({ endpoint: new URL(endpoint).origin, process: processName }, 'traces exported over OTLP');
  let stopped = false;
  return {
    name: 'telemetry',
    async stop() {
      if (stopped) return;
      stopped = true;
      untraceRedis();
      useTracer(null);
      // shutdown() flushes the batch processor first; a collector that does not answer is given up on.
      await Promise.race([
        provider.shutdown().catch((err: unknown) => log?.warn({ err: String(err) }, 'trace export at shutdown failed')),
        new Promise((r) => setTimeout(r, FLUSH_TIMEOUT_MS).unref()),
      ]);
      api.trace.disable();
      api.context.disable();
    },
  };
}
