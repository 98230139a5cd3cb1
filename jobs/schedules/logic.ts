import { CronExpressionParser, type CronExpression } from 'cron-parser';
import { isTimeZone } from '../../shared/time-zone.js';

/**
 * Schedule arithmetic, pure: cron expressions (five fields, or six with
 * seconds first) in an IANA time zone, parsed by cron-parser, which applies
 * the zone's rules (luxon) to every tick. Daylight-saving transitions: a
 * local time that does not exist (02:30 on the spring-forward night in
 * Europe/Berlin) fires once, an hour later by the wall clock (03:30); a
 * local time that happens twice (02:30 on the fall-back night) fires once,
 * at its first occurrence. Either way each day's tick fires exactly once.
 */

/** Why a cron expression or zone cannot be used, or null when both can. */
export function scheduleProblem(cron: string, timezone: string): string | null {
  if (!isTimeZone(timezone))
    return `timezone ${JSON.stringify(timezone)} is not an IANA time zone (Europe/Berlin, America/New_York, UTC)`;
  const fields = cron.trim().split(/\s+/).length;
  if (cron.trim().startsWith('@'))
    return 'cron takes five fields (minute hour day month weekday) or six with seconds first, not @-macros';
  if (fields < 5 || fields > 6)
    return `cron takes five fields (minute hour day month weekday) or six with seconds first; got ${fields}`;
  try {
    const expression = parse(cron, timezone, new Date());
    if (!expression.hasNext()) return 'cron never fires';
  } catch (err) {
    return `cron ${JSON.stringify(cron)} is invalid: ${(err as Error).message}`;
  }
  return null;
}

function parse(cron: string, timezone: string, after: Date): CronExpression {
  return CronExpressionParser.parse(cron, { tz: timezone, currentDate: after, strict: false });
}

/** The next `count` ticks strictly after `after`. */
export function nextFireTimes(cron: string, timezone: string, after: Date, count: number): Date[] {
  return parse(cron, timezone, after)
    .take(count)
    .map((d) => d.toDate());
}

export const CATCH_UP_POLICIES = ['none', 'once'] as const;
export type CatchUp = (typeof CATCH_UP_POLICIES)[number];

/** What one claim of a due schedule does. */
export interface TickPlan {
  /** The tick the firing is recorded for: the latest one due. */
  scheduledFor: Date;
  /** Earlier due ticks that are not run (downtime). */
  missed: number;
  /** `run`: start the run; `missed`: record the late tick without one (catchUp none). */
  action: 'run' | 'missed';
  trigger: 'tick' | 'catchUp';
  /** The first tick after now: where next_fire_at moves. */
  nextFireAt: Date;
}

/** Ticks counted one by one at most this many; a longer downtime reports this many missed. */
const MAX_COUNTED = 10_000;

/**
 * Plans the claim of a schedule whose `nextFireAt` is due. The latest due
 * tick is on time when it is at most `graceMs` old: it runs. A late one
 * (the clocks were down) follows `catchUp`: `once` runs it once, as a
 * catch-up, `none` records it as missed. Earlier due ticks are never run,
 * only counted.
 */
export function planTick(
  s: { cron: string; timezone: string; catchUp: CatchUp; nextFireAt: Date },
  now: Date,
  graceMs: number,
): TickPlan {
  let scheduledFor = s.nextFireAt;
  let earlier = 0;
  const ticks = parse(s.cron, s.timezone, s.nextFireAt);
  while (ticks.hasNext()) {
    const tick = ticks.next().toDate();
    if (tick > now) break;
    if (earlier >= MAX_COUNTED) {
      scheduledFor = parse(s.cron, s.timezone, new Date(now.getTime() + 1))
        .prev()
        .toDate();
      break;
    }
    scheduledFor = tick;
    earlier++;
  }
  const nextFireAt = nextFireTimes(s.cron, s.timezone, now, 1)[0]!;
  const late = now.getTime() - scheduledFor.getTime() > graceMs;
  if (!late) return { scheduledFor, missed: earlier, action: 'run', trigger: 'tick', nextFireAt };
  if (s.catchUp === 'once') return { scheduledFor, missed: earlier, action: 'run', trigger: 'catchUp', nextFireAt };
  return { scheduledFor, missed: earlier + 1, action: 'missed', trigger: 'catchUp', nextFireAt };
}
