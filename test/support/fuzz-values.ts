/**
 * A small seeded generator for the route fuzz (test/fuzz): values that fit a
 * JSON Schema of the OpenAPI document, and hostile mutations of them. Seeded
 * and self-contained, so a failure is reproduced by its seed.
 */
type Json = Record<string, any>;

/** mulberry32: a tiny seeded PRNG, good enough to spread test cases. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Strings a hostile client sends: NUL, lone surrogates, bidi and zero-width marks, huge, empty, prototype names. */
export const HOSTILE_STRINGS = [
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfff',
  '\udc00\ud800',
  '',
  ' ',
  '\u202e\u200b\ufeff',
  '𝔘𝔫𝔦𝔠𝔬𝔡𝔢 😀 ﷽ ﬃ',
  'e\u0301\u0301\u0301',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  '../../etc/passwd',
  "'; drop table runs; --",
  '${7*7}{{7*7}}',
  '<script>alert(1)</script>',
  'javascript:alert(1)',
  'x'.repeat(70_000),
  '9'.repeat(400),
  '-1',
  '1e999',
  'NaN',
  'null',
  'true',
  '%00',
  '\r\nX-Injected: 1',
  'sandbox_',
  'env:DATABASE_URL',
  'awp_' + 'A'.repeat(43),
];

/** Numbers past every column's range, fractions where integers go, negatives, -0. */
export const HOSTILE_NUMBERS = [
  99999999999,
  2 ** 31,
  2 ** 53 + 2,
  1e308,
  -1e308,
  -1,
  -0,
  0,
  0.5,
  1e-320,
  Number.MAX_SAFE_INTEGER,
];

/** Percent-encoded text for URLs: NUL, an encoded surrogate (invalid UTF-8), overlong NUL, broken escapes. */
export const HOSTILE_URL_TEXT = [
  '%00',
  'a%00b',
  '%ED%A0%80',
  '%C0%80',
  '%FF%FE',
  '%',
  '%zz',
  '%25',
  '..',
  '%2F..%2F',
  '__proto__',
  'constructor',
  'x'.repeat(5000),
  '%E2%80%AE',
  encodeURIComponent('𝔘😀'),
  '-1',
  '99999999999',
  '1e999',
  '0x10',
  ' ',
  '%20',
  '%0d%0aX-A:%201',
];

/** Timestamps at the edges of RFC 3339 and of what Postgres stores (year 0000, offsets past ±15:59, leap seconds). */
export const EDGE_DATE_TIMES = [
  '0000-01-01T00:00:00Z',
  '0001-01-01T00:00:00+14:00',
  '9999-12-31T23:59:60Z',
  '2026-01-01T00:00:00-23:59',
  '2026-02-29T00:00:00Z',
  '2026-01-01 00:00:00z',
  '1969-12-31T23:59:59.9999999999Z',
  '2026-01-01T00:00:00+0530',
];

/** Candidates for `pattern` strings; the first the pattern accepts is used. */
const PATTERN_SAMPLES = [
  'fuzz.sample',
  'run.completed',
  'task.*',
  '*',
  'whsec_' + 'QUJDREVGR0hJSktMTU5PUFFSU1RVVldY',
  'env:AWP_SECRET_FUZZ',
  'abc',
  'USD',
  'ab-12_x.y',
];

/**
 * Builds a JSON value from `key/value` pairs as own properties, even `__proto__` (an object literal would set the
 * prototype instead).
 */
export function own(entries: Array<[string, unknown]>, into: Json = {}): Json {
  for (const [k, v] of entries)
    Object.defineProperty(into, k, { value: v, enumerable: true, writable: true, configurable: true });
  return into;
}

export class Gen {
  constructor(
    readonly rng: () => number,
    private readonly components: Record<string, Json>,
  ) {}

  int(n: number): number {
    return Math.floor(this.rng() * n);
  }

  chance(p: number): boolean {
    return this.rng() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  private resolve(schema: Json): Json {
    let s = schema;
    for (let i = 0; i < 10 && typeof s?.$ref === 'string'; i++) s = this.components[s.$ref.split('/').pop()!] ?? {};
    return s ?? {};
  }

  private text(s: Json, name = ''): string {
    if (/url|endpoint|uri|href/i.test(name) && !s.pattern)
      return this.pick(['https://example.com/hook', 'http://127.0.0.1:9/x']);
    if (s.format === 'date-time' && this.chance(0.3)) return this.pick(EDGE_DATE_TIMES);
    if (s.format === 'date-time') return new Date(Date.UTC(2026, this.int(12), 1 + this.int(28))).toISOString();
    if (s.format === 'email') return `fuzz${this.int(1e6)}@example.com`;
    if (s.format === 'uri') return this.pick(['https://example.com/a', 'http://127.0.0.1:9/x']);
    if (typeof s.pattern === 'string') {
      const re = new RegExp(s.pattern);
      const hit = PATTERN_SAMPLES.find((c) => re.test(c));
      if (hit) return hit;
    }
    const min = s.minLength ?? 0;
    const max = Math.min(s.maxLength ?? 24, Math.max(min, 24));
    const len = min + this.int(max - min + 1);
    const words = ['find', 'road', 'bike', 'under', '900', 'dollars', 'hunt', 'run', 'a', 'shoes', 'check', 'scam'];
    let out = '';
    while (out.length < len) out += (out ? ' ' : '') + this.pick(words);
    return out.slice(0, Math.max(len, min));
  }

  /** A value the schema accepts (mostly: patterns and formats are approximated), nested at most a few levels. */
  sample(schema: Json | undefined, depth = 0, name = ''): unknown {
    const s = this.resolve(schema ?? {});
    if ('const' in s) return s.const;
    if (Array.isArray(s.enum)) return this.pick(s.enum);
    if ('default' in s && this.chance(0.2)) return s.default;
    const alt = s.anyOf ?? s.oneOf;
    if (Array.isArray(alt)) return this.sample(this.pick(alt), depth);
    if (Array.isArray(s.allOf)) return Object.assign({}, ...s.allOf.map((x: Json) => this.sample(x, depth)));
    const type = Array.isArray(s.type) ? this.pick(s.type) : (s.type ?? (s.properties ? 'object' : undefined));
    switch (type) {
      case 'string':
        return this.text(s, name);
      case 'integer':
      case 'number': {
        const min = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : 0);
        const max = s.maximum ?? min + 1000;
        const n = min + this.rng() * (max - min);
        return type === 'integer' ? Math.floor(n) : Math.round(n * 100) / 100;
      }
      case 'boolean':
        return this.chance(0.5);
      case 'null':
        return null;
      case 'array': {
        if (depth > 4) return [];
        const min = s.minItems ?? 0;
        const n = min + this.int(Math.max(1, Math.min(s.maxItems ?? 3, 3) - min + 1));
        const items = Array.from({ length: n }, () => this.sample(s.items, depth + 1, name));
        return s.uniqueItems ? [...new Map(items.map((v) => [JSON.stringify(v), v])).values()] : items;
      }
      case 'object': {
        const out: Json = {};
        const required = new Set<string>(s.required ?? []);
        for (const [k, v] of Object.entries((s.properties ?? {}) as Json)) {
          if (required.has(k) || (depth < 4 && this.chance(0.5))) own([[k, this.sample(v, depth + 1, k)]], out);
        }
        return out;
      }
      default:
        return this.chance(0.5) ? this.text({}) : { any: this.int(10) };
    }
  }

  /** One hostile JSON value: a string, a number, a wrong type, a prototype-shaped object, a long array, a deep one. */
  hostileValue(): unknown {
    switch (this.int(6)) {
      case 0:
      case 1:
        return this.pick(HOSTILE_STRINGS);
      case 2:
        return this.pick(HOSTILE_NUMBERS);
      case 3:
        return this.pick([true, false, null, [], {}, [null], [[]], { '': '' }]);
      case 4:
        return own([
          [
            this.pick(['__proto__', 'constructor', 'prototype']),
            own([
              ['polluted', true],
              ['__proto__', { admin: true }],
            ]),
          ],
        ]);
      default:
        return this.chance(0.5)
          ? Array.from({ length: 2000 }, (_, i) => i)
          : JSON.parse('{"a":'.repeat(40) + '[1]' + '}'.repeat(40));
    }
  }

  /** Every (container, key) inside `value`, for picking a place to mutate. */
  private slots(
    value: unknown,
    out: Array<[Json | unknown[], string | number]> = [],
    depth = 0,
  ): Array<[Json | unknown[], string | number]> {
    if (depth > 8 || !value || typeof value !== 'object') return out;
    for (const [k, v] of Object.entries(value)) {
      out.push([value as Json, Array.isArray(value) ? Number(k) : k]);
      this.slots(v, out, depth + 1);
    }
    return out;
  }

  /**
   * A copy of `value` with one hostile change: a field replaced or dropped, a hostile field added, or the whole value
   * replaced.
   */
  mutate(value: unknown): unknown {
    const copy: unknown = value === undefined ? {} : JSON.parse(JSON.stringify(value));
    const slots = this.slots(copy);
    const r = this.rng();
    if (slots.length > 0 && r < 0.6) {
      const [container, key] = this.pick(slots);
      if (this.chance(0.15) && !Array.isArray(container)) delete (container as Json)[key as string];
      else own([[String(key), this.hostileValue()]], container as Json);
      return copy;
    }
    if (copy && typeof copy === 'object' && !Array.isArray(copy) && r < 0.9) {
      return own([[this.pick([...HOSTILE_STRINGS.slice(0, 18), 'extra']), this.hostileValue()]], copy as Json);
    }
    return this.hostileValue();
  }
}
