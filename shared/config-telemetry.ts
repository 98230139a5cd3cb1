// OpenTelemetry traces (shared/telemetry.ts): config schema properties.
import { Type } from '@sinclair/typebox';

export const telemetryConfig = {
  OTEL_EXPORTER_OTLP_ENDPOINT: Type.Optional(
    Type.String({
      pattern: '^https?://',
      description:
        'OTLP/HTTP collector base URL (`http://collector:4318`); spans go to `<it>/v1/traces` as JSON. Unset: no ' +
        'tracer provider, no exporter, no spans (only the API no-op)',
    }),
  ),
  OTEL_EXPORTER_OTLP_HEADERS: Type.Optional(
    Type.String({
      description:
        'Headers sent with each export, `key=value` pairs separated by commas (a vendor API key); values are masked ' +
        'in logs',
    }),
  ),
  OTEL_SERVICE_NAME: Type.String({
    default: 'awp',
    description: 'The `service.name` resource attribute of every span (`awp.process` tells web, worker, … apart)',
  }),
  OTEL_TRACES_SAMPLER_RATIO: Type.Number({
    minimum: 0,
    maximum: 1,
    default: 1,
    description:
      'Share of new traces recorded (parent-based: a request whose `traceparent` says sampled is recorded, and a ' +
      "run's steps follow its request)",
  }),
};
