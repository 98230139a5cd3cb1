import dc from 'node:diagnostics_channel';
import {
  ATTR_DB_OPERATION_NAME,
  ATTR_DB_SYSTEM_NAME,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
} from '@opentelemetry/semantic-conventions';
import { childSpan, failSpan, SpanKind, type Span } from './spans.js';

/** What ioredis (6.x) publishes for each command on its `ioredis:command` tracing channel. */
interface CommandMessage {
  command: string;
  serverAddress?: string;
  serverPort?: number;
  error?: unknown;
}

/**
 * Redis command spans, from the tracing channel ioredis publishes every command on (node:diagnostics_channel):
 * one place for every client (one server, each node of a cluster, BullMQ's connections), with no patching. A
 * command becomes a span only inside a recorded span; its name is the verb alone (`EVALSHA`, `HGET`): ioredis's
 * message also carries arguments, which may be keys, job data or values, and none is copied. Subscribed only while
 * tracing runs: without a subscriber ioredis skips the channel altogether. Returns the unsubscribe.
 */
export function traceRedisCommands(): () => void {
  const channel = dc.tracingChannel<CommandMessage>('ioredis:command');
  const spans = new WeakMap<object, Span>();
  const handlers = {
    start(message: CommandMessage) {
      const span = childSpan(SpanKind.CLIENT, () => {
        const verb = String(message.command).toUpperCase();
        const attributes = {
          [ATTR_DB_SYSTEM_NAME]: 'redis',
          [ATTR_DB_OPERATION_NAME]: verb,
          ...(message.serverAddress ? { [ATTR_SERVER_ADDRESS]: message.serverAddress } : {}),
          ...(message.serverPort ? { [ATTR_SERVER_PORT]: message.serverPort } : {}),
        };
        return { name: verb, attributes };
      });
      if (span) spans.set(message, span);
    },
    end() {},
    asyncStart() {},
    error(message: CommandMessage) {
      const span = spans.get(message);
      // Redis error replies start with their kind (`WRONGTYPE …`, `NOSCRIPT …`): that word only.
      const reply = /^([A-Z]{2,20})\b/.exec(String((message.error as Error | undefined)?.message ?? ''))?.[1];
      if (span) failSpan(span, message.error, reply);
    },
    asyncEnd(message: CommandMessage) {
      spans.get(message)?.end();
      spans.delete(message);
    },
  };
  channel.subscribe(handlers);
  return () => channel.unsubscribe(handlers);
}
