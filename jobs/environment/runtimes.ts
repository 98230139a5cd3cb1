import type { ProjectFiles } from './project-files.js';

export interface RuntimeFinding {
  name: string;
  /** Version or range as declared; null when the file names the runtime without one. */
  version: string | null;
  source: string;
}

export interface PackageManagerFinding {
  name: string;
  ecosystem: string;
  lockfile: string | null;
  installCommand: string;
}

/** Official images (and common vendor images) and the runtime each provides. */
const IMAGE_RUNTIMES: Array<[RegExp, string]> = [
  [/^(node|circleci\/node|cimg\/node)$/, 'node'],
  [/^(python|cimg\/python)$/, 'python'],
  [/^(golang|cimg\/go)$/, 'go'],
  [/^(rust|cimg\/rust)$/, 'rust'],
  [/^(ruby|cimg\/ruby)$/, 'ruby'],
  [/^(openjdk|eclipse-temurin|amazoncorretto|maven|gradle)$/, 'java'],
  [/^(oven\/bun)$/, 'bun'],
  [/^(denoland\/deno)$/, 'deno'],
];

/** `.tool-versions` (asdf) plugin names → runtime names. */
const ASDF_NAMES: Record<string, string> = {
  nodejs: 'node',
  node: 'node',
  python: 'python',
  golang: 'go',
  go: 'go',
  rust: 'rust',
  ruby: 'ruby',
  java: 'java',
  bun: 'bun',
  deno: 'deno',
};

/** Runtimes and their versions as every file that declares one states them. */
export function detectRuntimes(p: ProjectFiles): RuntimeFinding[] {
  const found: RuntimeFinding[] = [];
  const add = (name: string, version: string | null | undefined, source: string) =>
    found.push({ name, version: version ? String(version).trim() : null, source });

  for (const path of p.named('package.json')) {
    const pkg = p.json(path);
    if (!pkg) continue;
    add('node', typeof pkg.engines?.node === 'string' ? pkg.engines.node : null, `${path} engines.node`);
  }
  for (const file of ['.nvmrc', '.node-version'])
    for (const path of p.named(file)) add('node', p.text(path).split(/\r?\n/)[0]!.replace(/^v/, ''), path);
  for (const path of p.named('.tool-versions')) {
    for (const line of p.text(path).split(/\r?\n/)) {
      const [plugin, version] = line.replace(/#.*/, '').trim().split(/\s+/);
      if (plugin && ASDF_NAMES[plugin]) add(ASDF_NAMES[plugin]!, version, `${path} ${plugin}`);
    }
  }
  for (const path of p.named(/^requirements.*\.txt$/)) add('python', null, path);
  for (const path of p.named('pyproject.toml')) {
    const t = p.toml(path);
    if (!t) continue;
    add(
      'python',
      t.project?.['requires-python'] ?? t.tool?.poetry?.dependencies?.python ?? null,
      `${path}${t.project?.['requires-python'] ? ' project.requires-python' : ''}`,
    );
  }
  for (const path of p.named('.python-version')) add('python', p.text(path).split(/\r?\n/)[0], path);
  for (const path of p.named('go.mod')) {
    const text = p.text(path);
    add('go', /^toolchain\s+go(\S+)/m.exec(text)?.[1] ?? /^go\s+(\S+)/m.exec(text)?.[1] ?? null, path);
  }
  for (const path of p.named('Cargo.toml')) {
    const t = p.toml(path);
    if (t) add('rust', t.package?.['rust-version'] ?? t.workspace?.package?.['rust-version'] ?? null, path);
  }
  for (const path of p.named(/^rust-toolchain(\.toml)?$/)) {
    const channel = path.endsWith('.toml') ? p.toml(path)?.toolchain?.channel : p.text(path).split(/\r?\n/)[0];
    if (channel !== undefined) add('rust', channel, path);
  }
  for (const path of p.named('Gemfile'))
    add('ruby', /^\s*ruby\s+['"]([^'"]+)['"]/m.exec(p.text(path))?.[1] ?? null, path);
  for (const path of p.named('.ruby-version'))
    add(
      'ruby',
      p
        .text(path)
        .split(/\r?\n/)[0]!
        .replace(/^ruby-/, ''),
      path,
    );
  for (const path of p.named('pom.xml')) {
    const v = p.xmlValues(path, [
      'properties > java\\.version',
      'properties > maven\\.compiler\\.release',
      'properties > maven\\.compiler\\.source',
    ]);
    if (p.problems.some((x) => x.path === path)) continue;
    add('java', Object.values(v)[0] ?? null, path);
  }
  for (const path of p.named(/^build\.gradle(\.kts)?$/)) {
    const text = p.text(path);
    const version =
      /JavaLanguageVersion\.of\((\d+)\)/.exec(text)?.[1] ??
      /sourceCompatibility\s*=\s*(?:JavaVersion\.VERSION_)?['"]?([\d_.]+)/
        .exec(text)?.[1]
        ?.replace(/^1_/, '1.')
        .replace(/_/g, '.');
    add('java', version ?? null, path);
  }
  for (const path of p.named(/^(Dockerfile|Containerfile)(\..+)?$/)) {
    for (const m of p.text(path).matchAll(/^\s*FROM\s+(?:--platform=\S+\s+)?([^\s:@]+)(?::([^\s@]+))?/gim)) {
      const image = m[1]!.replace(/^(docker\.io\/)?(library\/)?/, '');
      const runtime = IMAGE_RUNTIMES.find(([re]) => re.test(image))?.[1];
      if (runtime) add(runtime, m[2]?.match(/^[\d.]+/)?.[0] ?? null, `${path} FROM ${m[1]}${m[2] ? `:${m[2]}` : ''}`);
    }
  }
  return found;
}

/** Lockfiles (and manifests) → the package manager that installs the dependencies, most specific first. */
const MANAGERS: Array<{ file: string | RegExp; name: string; ecosystem: string; install: string; lock: boolean }> = [
  { file: 'pnpm-lock.yaml', name: 'pnpm', ecosystem: 'node', install: 'pnpm install --frozen-lockfile', lock: true },
  { file: 'yarn.lock', name: 'yarn', ecosystem: 'node', install: 'yarn install --frozen-lockfile', lock: true },
  { file: /^bun\.lockb?$/, name: 'bun', ecosystem: 'node', install: 'bun install --frozen-lockfile', lock: true },
  { file: 'package-lock.json', name: 'npm', ecosystem: 'node', install: 'npm ci', lock: true },
  { file: 'package.json', name: 'npm', ecosystem: 'node', install: 'npm install', lock: false },
  { file: 'poetry.lock', name: 'poetry', ecosystem: 'python', install: 'poetry install', lock: true },
  { file: 'uv.lock', name: 'uv', ecosystem: 'python', install: 'uv sync --frozen', lock: true },
  { file: 'Pipfile.lock', name: 'pipenv', ecosystem: 'python', install: 'pipenv sync', lock: true },
  {
    file: /^requirements.*\.txt$/,
    name: 'pip',
    ecosystem: 'python',
    install: 'pip install -r requirements.txt',
    lock: false,
  },
  { file: 'pyproject.toml', name: 'pip', ecosystem: 'python', install: 'pip install -e .', lock: false },
  { file: 'go.sum', name: 'go modules', ecosystem: 'go', install: 'go mod download', lock: true },
  { file: 'go.mod', name: 'go modules', ecosystem: 'go', install: 'go mod download', lock: false },
  { file: 'Cargo.lock', name: 'cargo', ecosystem: 'rust', install: 'cargo fetch --locked', lock: true },
  { file: 'Cargo.toml', name: 'cargo', ecosystem: 'rust', install: 'cargo fetch', lock: false },
  { file: 'Gemfile.lock', name: 'bundler', ecosystem: 'ruby', install: 'bundle install', lock: true },
  { file: 'Gemfile', name: 'bundler', ecosystem: 'ruby', install: 'bundle install', lock: false },
  { file: 'pom.xml', name: 'maven', ecosystem: 'java', install: 'mvn -B dependency:go-offline', lock: false },
  { file: /^gradlew$/, name: 'gradle wrapper', ecosystem: 'java', install: './gradlew dependencies', lock: false },
  { file: /^build\.gradle(\.kts)?$/, name: 'gradle', ecosystem: 'java', install: 'gradle dependencies', lock: false },
];

/**
 * One package manager per ecosystem: a lockfile wins over a bare manifest; `packageManager` in package.json wins for
 * node.
 */
export function detectPackageManagers(p: ProjectFiles): PackageManagerFinding[] {
  const out = new Map<string, PackageManagerFinding>();
  const declared = p
    .named('package.json')
    .map((path) => p.json(path)?.packageManager)
    .find((v): v is string => typeof v === 'string');
  for (const m of MANAGERS) {
    if (out.has(m.ecosystem)) continue;
    const path = p.first(m.file);
    if (!path) continue;
    let finding: PackageManagerFinding = {
      name: m.name,
      ecosystem: m.ecosystem,
      lockfile: m.lock ? path : null,
      installCommand: m.install,
    };
    if (m.ecosystem === 'node' && declared && !m.lock) {
      const name = declared.split('@')[0]!;
      finding = { ...finding, name, installCommand: `${name} install` };
    }
    if (m.name === 'pip' && path !== 'requirements.txt' && /requirements/.test(path))
      finding.installCommand = `pip install -r ${path}`;
    out.set(m.ecosystem, finding);
  }
  return [...out.values()];
}

/** Two exact pins of one runtime that disagree on the major version (minor too for python, where 3.x minors break). */
export function runtimeConflicts(runtimes: RuntimeFinding[]): string[] {
  const exact = (v: string | null) => (v && /^\d+(\.\d+)*$/.test(v) ? v.split('.') : null);
  const out: string[] = [];
  const byName = new Map<string, RuntimeFinding[]>();
  for (const r of runtimes) byName.set(r.name, [...(byName.get(r.name) ?? []), r]);
  for (const [name, list] of byName) {
    const pins = list
      .map((r) => ({ r, parts: exact(r.version) }))
      .filter((x): x is { r: RuntimeFinding; parts: string[] } => x.parts !== null);
    const depth = name === 'python' ? 2 : 1;
    // Compared as far as both pins go: "3" and "3.11" agree, "3.10" and "3.11" do not.
    const agree = (a: string[], b: string[]) =>
      a.slice(0, Math.min(depth, a.length, b.length)).every((v, i) => v === b[i]);
    const clash = pins.find((x) => pins.some((y) => !agree(x.parts, y.parts)));
    if (clash) out.push(`${name} versions disagree: ${pins.map((x) => `${x.r.version} (${x.r.source})`).join(' vs ')}`);
  }
  return out;
}
