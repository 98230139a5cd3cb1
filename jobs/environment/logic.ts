import type { EnvironmentReadiness } from '../../shared/schemas/delivery-ops.js';
import { pinMismatches, type PinMismatch } from './pins.js';
import { ProjectFiles } from './project-files.js';
import {
  detectPackageManagers,
  detectRuntimes,
  runtimeConflicts,
  type PackageManagerFinding,
  type RuntimeFinding,
} from './runtimes.js';
import { detectEnv, detectServices, type SecretFinding, type ServiceFinding } from './services.js';

export interface SetupStep {
  order: number;
  /** Closed kinds, so an autonomy grant can name what it allows. */
  action: 'installRuntime' | 'startServices' | 'provideSecrets' | 'installDependencies' | 'runScript';
  description: string;
  /** A command a person (or a granted agent) would run; the service never runs it. */
  command: string | null;
  source: string | null;
}

export interface EnvironmentReport {
  runtimes: Array<RuntimeFinding & { sources?: string[] }>;
  packageManagers: PackageManagerFinding[];
  services: ServiceFinding[];
  secrets: SecretFinding[];
  envNames: string[];
  /** Version ranges their pins do not satisfy (package.json vs the lockfile, engines.node vs .nvmrc). */
  pinMismatches: PinMismatch[];
  setupSteps: SetupStep[];
  readiness: EnvironmentReadiness;
  reasons: string[];
  filesRead: number;
}

/** How a runtime is installed at a version (asdf reads .tool-versions; otherwise the usual version manager). */
function installCommand(r: RuntimeFinding): string {
  const v = r.version && /^[\d.]+$/.test(r.version) ? r.version : 'latest';
  const cmds: Record<string, string> = {
    node: `nvm install ${v}`,
    python: `pyenv install ${v}`,
    go: `go install golang.org/dl/go${v}@latest`,
    rust: `rustup toolchain install ${r.version ?? 'stable'}`,
    ruby: `rbenv install ${v}`,
    java: `sdk install java ${v}`,
  };
  return cmds[r.name] ?? `install ${r.name} ${v}`;
}

/** The most specific version per runtime: an exact pin over a range over nothing; every source is kept. */
function mergeRuntimes(all: RuntimeFinding[]): EnvironmentReport['runtimes'] {
  const rank = (v: string | null) => (!v ? 0 : /^[\d.]+$/.test(v) ? 2 : 1);
  const out = new Map<string, RuntimeFinding & { sources: string[] }>();
  for (const r of all) {
    const cur = out.get(r.name);
    if (!cur) out.set(r.name, { ...r, sources: [r.source] });
    else {
      cur.sources.push(r.source);
      if (rank(r.version) > rank(cur.version)) Object.assign(cur, { version: r.version, source: r.source });
    }
  }
  return [...out.values()];
}

/** Scripts of package.json worth running after install, in this order. */
const SCRIPTS = ['migrate', 'db:migrate', 'build', 'test'];

/**
 * What a project needs to run, from its files alone: runtimes and versions,
 * package managers, backing services, secrets, ordered setup steps and
 * whether it is ready. Runs nothing.
 */
export function analyzeEnvironment(files: Record<string, string>): EnvironmentReport {
  const p = new ProjectFiles(files);
  const rawRuntimes = detectRuntimes(p);
  const runtimes = mergeRuntimes(rawRuntimes);
  const packageManagers = detectPackageManagers(p);
  const env = detectEnv(p);
  const services = detectServices(p, env.names);
  const conflicts = runtimeConflicts(rawRuntimes);

  const steps: Array<Omit<SetupStep, 'order'>> = [];
  for (const r of runtimes)
    steps.push({
      action: 'installRuntime',
      description: `Install ${r.name}${r.version ? ` ${r.version}` : ''}`,
      command: installCommand(r),
      source: r.source,
    });
  const compose = p.first(/^(docker-)?compose(\.[\w-]+)?\.ya?ml$/);
  if (services.length > 0) {
    const inCompose = services.filter((s) => s.evidence.some((e) => e.kind === 'composeImage'));
    const composeNames = inCompose.map(
      (s) => s.evidence.find((e) => e.kind === 'composeImage')!.source.split('services.')[1],
    );
    steps.push({
      action: 'startServices',
      description: `Start ${services.map((s) => s.name + (s.version ? ` ${s.version}` : '')).join(', ')}`,
      command: compose && inCompose.length > 0 ? `docker compose -f ${compose} up -d ${composeNames.join(' ')}` : null,
      source: compose ?? services[0]!.evidence[0]!.source,
    });
  }
  const example = p.first(/^(\.env\.(example|sample|template|dist)|env\.example)$/);
  if (example || env.secrets.length > 0) {
    const missing = env.secrets.filter((s) => s.needsValue).map((s) => s.name);
    steps.push({
      action: 'provideSecrets',
      description: missing.length ? `Provide values for ${missing.join(', ')}` : 'Copy the example environment',
      command: example ? `cp ${example} .env` : null,
      source: example ?? env.secrets[0]!.source,
    });
  }
  for (const m of packageManagers)
    steps.push({
      action: 'installDependencies',
      description: `Install ${m.ecosystem} dependencies with ${m.name}`,
      command: m.installCommand,
      source: m.lockfile,
    });
  const pkgPath = p.first('package.json');
  const scripts = (pkgPath && p.json(pkgPath)?.scripts) || {};
  const runner = packageManagers.find((m) => m.ecosystem === 'node')?.name ?? 'npm';
  for (const s of SCRIPTS)
    if (typeof scripts[s] === 'string')
      steps.push({
        action: 'runScript',
        description: `Run the ${s} script`,
        command: `${runner === 'npm' ? 'npm run' : runner} ${s}`,
        source: `${pkgPath} scripts.${s}`,
      });
  const setupSteps = steps.map((s, i) => ({ order: i + 1, ...s }));

  const reasons: string[] = [];
  const blocking = [...p.problems.map((x) => x.message), ...conflicts];
  const input: string[] = [];
  if (runtimes.length === 0)
    input.push(
      'no runtime could be detected from the files given; send the project manifests (package.json, ' +
        'pyproject.toml, go.mod, ...)',
    );
  for (const r of runtimes.filter((r) => !r.version)) input.push(`${r.name} is used but no file pins its version`);
  const pins = pinMismatches(p);
  input.push(...pins.map((m) => m.message));
  const secretsNeeded = env.secrets.filter((s) => s.needsValue);
  if (secretsNeeded.length) input.push(`secrets need values: ${secretsNeeded.map((s) => s.name).join(', ')}`);
  reasons.push(...blocking, ...input);
  const readiness: EnvironmentReadiness = blocking.length > 0 ? 'blocked' : input.length > 0 ? 'needsInput' : 'ready';
  return {
    runtimes,
    packageManagers,
    services,
    secrets: env.secrets,
    envNames: [...new Set(env.names.map((n) => n.name))],
    pinMismatches: pins,
    setupSteps,
    readiness,
    reasons,
    filesRead: p.paths.length,
  };
}
