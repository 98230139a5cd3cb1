import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The parts of a V8 `.cpuprofile` (what `node --cpu-prof` writes) the summary reads. */
export interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number } }>;
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const SPECIAL = new Set(['(idle)', '(program)', '(garbage collector)', '(root)']);

/**
 * Where a function's time goes, in words a reader acts on: a package
 * (`knex`, `pg`, `ioredis`, `bullmq`), a Node core module (`node:net`), a
 * folder of this project (`jobs/orchestrator`), or V8's own buckets
 * (`(garbage collector)`, `(program)`, `(idle)`); native bindings that write
 * to sockets (`writev`, `writeUtf8String`: the write syscalls of every
 * Postgres query and Redis command) are a category of their own.
 */
export function category(functionName: string, url: string, root: string): string {
  if (SPECIAL.has(functionName)) return functionName;
  // Native bindings have no script: name the ones that dominate a server's profile by what they do.
  if (!url)
    return /^(writev|writeBuffer|write\w*String)$/.test(functionName)
      ? '(native: socket writes)'
      : functionName === 'runMicrotasks'
        ? '(native: microtasks)'
        : '(native)';
  if (url.startsWith('node:')) return url.split('/')[0]!;
  const file = url.startsWith('file://') ? fileURLToPath(url) : url;
  const nm = file.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const parts = file.slice(nm + '/node_modules/'.length).split('/');
    return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
  }
  const rel = path.relative(root, file);
  if (rel.startsWith('..')) return file;
  const parts = rel.split(path.sep);
  return parts.length > 2 ? `${parts[0]}/${parts[1]}` : rel;
}

function where(url: string, line: number, root: string): string {
  if (!url) return '';
  const file = url.startsWith('file://') ? fileURLToPath(url) : url;
  const nm = file.lastIndexOf('/node_modules/');
  const short =
    nm >= 0 ? file.slice(nm + '/node_modules/'.length) : path.isAbsolute(file) ? path.relative(root, file) : file;
  return `${short}:${line + 1}`;
}

export interface ProfileSummary {
  /** Sampled time inside the windows (all of the profile when none were given), ms. */
  sampledMs: number;
  /** Of which not idle, ms: the percentages below are shares of this. */
  busyMs: number;
  topFunctions: Array<{ fn: string; where: string; selfMs: number; pct: number }>;
  byCategory: Array<{ category: string; selfMs: number; pct: number }>;
}

/**
 * Self time per function and per category, from the samples that fall inside
 * `windows` (µs on the monotonic clock, the one V8 stamps samples with), so a
 * profile of a whole process can be cut to the phase that was measured.
 */
export function summariseProfile(
  profile: CpuProfile,
  windows: Array<{ startUs: number; endUs: number }>,
  root: string,
  top = 20,
): ProfileSummary {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
  const self = new Map<number, number>();
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i] ?? 0;
    if (windows.length > 0 && !windows.some((w) => t >= w.startUs && t <= w.endUs)) continue;
    // A sample stands for the time until the next one.
    const span = profile.timeDeltas[i + 1] ?? 0;
    self.set(profile.samples[i]!, (self.get(profile.samples[i]!) ?? 0) + span);
  }
  const byFn = new Map<string, { fn: string; where: string; us: number }>();
  const byCat = new Map<string, number>();
  let sampled = 0;
  let idle = 0;
  for (const [id, us] of self) {
    const cf = nodes.get(id)!;
    sampled += us;
    if (cf.functionName === '(idle)') idle += us;
    const fn = cf.functionName || '(anonymous)';
    const at = where(cf.url, cf.lineNumber, root);
    const key = `${fn} ${at}`;
    const entry = byFn.get(key) ?? { fn, where: at, us: 0 };
    entry.us += us;
    byFn.set(key, entry);
    const cat = category(cf.functionName, cf.url, root);
    byCat.set(cat, (byCat.get(cat) ?? 0) + us);
  }
  const busy = sampled - idle;
  const ms = (us: number) => Math.round(us / 100) / 10;
  const pct = (us: number) => (busy > 0 ? Math.round((us / busy) * 1000) / 10 : 0);
  return {
    sampledMs: ms(sampled),
    busyMs: ms(busy),
    topFunctions: [...byFn.values()]
      .filter((e) => e.fn !== '(idle)')
      .sort((a, b) => b.us - a.us)
      .slice(0, top)
      .map((e) => ({ fn: e.fn, where: e.where, selfMs: ms(e.us), pct: pct(e.us) })),
    byCategory: [...byCat.entries()]
      .filter(([c]) => c !== '(idle)')
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([c, us]) => ({ category: c, selfMs: ms(us), pct: pct(us) })),
  };
}

/** A few lines for stderr: the top categories and functions of one process. */
export function formatSummary(name: string, s: ProfileSummary, lines = 12): string {
  const cats = s.byCategory.slice(0, lines).map((c) => `  ${String(c.pct).padStart(5)} %  ${c.category}`);
  const fns = s.topFunctions.slice(0, lines).map((f) => `  ${String(f.pct).padStart(5)} %  ${f.fn}  ${f.where}`);
  return [
    `${name}: ${s.busyMs} ms busy of ${s.sampledMs} ms sampled`,
    ' by category (self time, % of busy):',
    ...cats,
    ' top functions (self time):',
    ...fns,
  ].join('\n');
}
