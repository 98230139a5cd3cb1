import { load } from 'cheerio';
import { parse as parseToml } from 'smol-toml';
import { parse as parseYaml } from 'yaml';

/**
 * The project's files, looked up by name, each parsed once with the parser
 * of its format (JSON, TOML by smol-toml, YAML by yaml, XML by cheerio). A
 * file that does not parse is recorded as a problem, never guessed at: a
 * broken manifest blocks the setup instead of yielding a wrong answer.
 */
export class ProjectFiles {
  readonly problems: Array<{ path: string; message: string }> = [];
  private readonly parsed = new Map<string, unknown>();

  constructor(readonly files: Record<string, string>) {}

  get paths(): string[] {
    return Object.keys(this.files);
  }

  /** Paths whose base name matches (any folder; root first, then shallow before deep). */
  named(test: RegExp | string): string[] {
    const hit = (p: string) => {
      const base = p.split('/').pop() ?? p;
      return typeof test === 'string' ? base === test : test.test(base);
    };
    return this.paths.filter(hit).sort((a, b) => a.split('/').length - b.split('/').length || a.localeCompare(b));
  }

  first(test: RegExp | string): string | undefined {
    return this.named(test)[0];
  }

  text(path: string): string {
    return this.files[path] ?? '';
  }

  json(path: string): Record<string, any> | null {
    return this.parse(path, 'JSON', (t) => JSON.parse(t));
  }

  toml(path: string): Record<string, any> | null {
    return this.parse(path, 'TOML', (t) => parseToml(t));
  }

  yaml(path: string): Record<string, any> | null {
    return this.parse(path, 'YAML', (t) => parseYaml(t, { maxAliasCount: 100 }));
  }

  /** XML text of the first element matching each selector, for pom.xml properties. */
  xmlValues(path: string, selectors: string[]): Record<string, string> {
    const $ = this.parse(path, 'XML', (t) => {
      if (!/<project[\s>]/.test(t)) throw new Error('no <project> element');
      return load(t, { xml: true });
    }) as ReturnType<typeof load> | null;
    if (!$) return {};
    const out: Record<string, string> = {};
    for (const s of selectors) {
      const v = $(s).first().text().trim();
      if (v) out[s] = v;
    }
    return out;
  }

  private parse<T>(path: string, format: string, fn: (text: string) => T): any {
    if (this.parsed.has(path)) return this.parsed.get(path);
    let value: unknown = null;
    try {
      value = fn(this.text(path));
      if (format !== 'XML' && (value === null || typeof value !== 'object' || Array.isArray(value)))
        throw new Error(`expected a ${format} object at the top level`);
    } catch (err) {
      value = null;
      this.problems.push({ path, message: `${path} is not valid ${format}: ${(err as Error).message.split('\n')[0]}` });
    }
    this.parsed.set(path, value);
    return value;
  }
}

/** `KEY=value` lines of a dotenv-style file (comments, `export ` and quotes handled). */
export function dotenvEntries(text: string): Array<{ name: string; value: string }> {
  const out: Array<{ name: string; value: string }> = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const m = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_.]*)\s*=\s*(.*)$/.exec(line);
    if (!m) continue;
    let value = m[2]!.trim();
    if (/^(['"]).*\1$/.test(value)) value = value.slice(1, -1);
    else value = value.replace(/\s+#.*$/, '');
    out.push({ name: m[1]!, value });
  }
  return out;
}
