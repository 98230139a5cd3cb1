import { dotenvEntries, type ProjectFiles } from './project-files.js';

export interface ServiceFinding {
  name: string;
  version: string | null;
  /** Where it was seen: a compose image, a client library or an environment variable. */
  evidence: Array<{ kind: 'composeImage' | 'clientLibrary' | 'envName'; source: string; detail: string }>;
}

export interface SecretFinding {
  name: string;
  source: string;
  /** No usable example value (empty, a placeholder, or read from the shell): the value must come from a person. */
  needsValue: boolean;
}

/** Backing services by image name, client library (per ecosystem) and environment variable name. */
const SERVICES: Array<{ name: string; images: RegExp; libraries: RegExp; env: RegExp }> = [
  {
    name: 'postgres',
    images: /^(postgres|postgis\/postgis|bitnami\/postgresql|timescale\/timescaledb)$/,
    libraries: new RegExp(
      [
        String.raw`^(pg|postgres|pg-promise|@neondatabase\/serverless|psycopg2(-binary)?|psycopg`,
        String.raw`|asyncpg|github\.com\/lib\/pq|github\.com\/jackc\/pgx(\/v\d)?|tokio-postgres`,
        String.raw`|sqlx|diesel|gem:pg|org\.postgresql)$`,
      ].join(''),
    ),
    env: /^(DATABASE_URL|POSTGRES_\w+|PG(HOST|USER|PASSWORD|DATABASE|PORT))$/,
  },
  {
    name: 'redis',
    images: /^(redis|bitnami\/redis|valkey\/valkey)$/,
    libraries: new RegExp(
      [
        String.raw`^(ioredis|redis|bullmq|github\.com\/redis\/go-redis(\/v\d)?`,
        String.raw`|github\.com\/go-redis\/redis(\/v\d)?|gem:redis|gem:sidekiq|celery\[redis\])$`,
      ].join(''),
    ),
    env: /^REDIS_\w+$/,
  },
  {
    name: 'mongodb',
    images: /^(mongo|bitnami\/mongodb)$/,
    libraries: /^(mongodb|mongoose|pymongo|motor|go\.mongodb\.org\/mongo-driver|gem:mongoid|gem:mongo)$/,
    env: /^(MONGO(DB)?_\w+)$/,
  },
  {
    name: 'mysql',
    images: /^(mysql|mariadb|bitnami\/mysql)$/,
    libraries: /^(mysql|mysql2|pymysql|mysqlclient|github\.com\/go-sql-driver\/mysql|gem:mysql2)$/,
    env: /^MYSQL_\w+$/,
  },
  {
    name: 'rabbitmq',
    images: /^(rabbitmq)$/,
    libraries: /^(amqplib|pika|aio-pika|github\.com\/rabbitmq\/amqp091-go|gem:bunny|lapin)$/,
    env: /^(AMQP_URL|RABBITMQ_\w+)$/,
  },
  {
    name: 'kafka',
    images: /^(confluentinc\/cp-kafka|bitnami\/kafka|apache\/kafka)$/,
    libraries: /^(kafkajs|confluent-kafka|kafka-python|github\.com\/segmentio\/kafka-go|rdkafka)$/,
    env: /^KAFKA_\w+$/,
  },
  {
    name: 'elasticsearch',
    images: /^(elasticsearch|docker\.elastic\.co\/elasticsearch\/elasticsearch|opensearchproject\/opensearch)$/,
    libraries: /^(@elastic\/elasticsearch|elasticsearch|opensearch-py)$/,
    env: /^(ELASTICSEARCH_\w+|OPENSEARCH_\w+)$/,
  },
  { name: 'memcached', images: /^memcached$/, libraries: /^(memjs|pymemcache|gem:dalli)$/, env: /^MEMCACHE(D)?_\w+$/ },
];

/** Names that hold credentials, not settings. */
const SECRET_NAME = /(SECRET|TOKEN|PASSWORD|PASSWD|PASS$|API_?KEY|PRIVATE_?KEY|ACCESS_?KEY|CREDENTIALS?|DSN|AUTH)/i;
const PLACEHOLDER = /^(|changeme|change-me|xxx+|your[-_].*|<.*>|\.\.\.|todo|replace.*|secret|password)$/i;
const ENV_EXAMPLES =
  /^(\.env\.(example|sample|template|dist|defaults)|env\.(example|sample)|\.env-example|example\.env)$/;

/** Dependency names a manifest declares, prefixed per ecosystem where names collide (`gem:pg`). */
function libraries(p: ProjectFiles): Array<{ lib: string; source: string }> {
  const out: Array<{ lib: string; source: string }> = [];
  for (const path of p.named('package.json')) {
    const pkg = p.json(path);
    for (const field of ['dependencies', 'devDependencies', 'optionalDependencies'])
      for (const lib of Object.keys(pkg?.[field] ?? {})) out.push({ lib, source: `${path} ${field}` });
  }
  for (const path of p.named(/^requirements.*\.txt$/)) {
    for (const line of p.text(path).split(/\r?\n/)) {
      const lib = /^\s*([A-Za-z0-9_.\-]+(\[[^\]]+\])?)/.exec(line.replace(/#.*/, ''))?.[1];
      if (lib && !lib.startsWith('-')) out.push({ lib: lib.toLowerCase(), source: path });
    }
  }
  for (const path of p.named('pyproject.toml')) {
    const t = p.toml(path);
    const deps: unknown[] = [...(t?.project?.dependencies ?? []), ...Object.keys(t?.tool?.poetry?.dependencies ?? {})];
    for (const d of deps)
      if (typeof d === 'string') out.push({ lib: d.split(/[\s<>=!~;]/)[0]!.toLowerCase(), source: path });
  }
  for (const path of p.named('go.mod')) {
    for (const m of p.text(path).matchAll(/^\s*(?:require\s+)?([a-z0-9.\-]+\.[a-z]{2,}\/[^\s]+)\s+v[\d.]+/gm))
      out.push({ lib: m[1]!, source: path });
  }
  for (const path of p.named('Cargo.toml')) {
    const t = p.toml(path);
    for (const lib of Object.keys({ ...(t?.dependencies ?? {}), ...(t?.['dev-dependencies'] ?? {}) }))
      out.push({ lib, source: path });
  }
  for (const path of p.named('Gemfile'))
    for (const m of p.text(path).matchAll(/^\s*gem\s+['"]([^'"]+)['"]/gm))
      out.push({ lib: `gem:${m[1]}`, source: path });
  for (const path of p.named('pom.xml'))
    for (const m of p.text(path).matchAll(/<groupId>\s*([^<\s]+)\s*<\/groupId>/g))
      out.push({ lib: m[1]!, source: path });
  return out;
}

/** Backing services the project needs, with the evidence for each. */
export function detectServices(p: ProjectFiles, envNames: Array<{ name: string; source: string }>): ServiceFinding[] {
  const found = new Map<string, ServiceFinding>();
  const note = (name: string, version: string | null, e: ServiceFinding['evidence'][number]) => {
    const s = found.get(name) ?? { name, version: null, evidence: [] };
    s.version ??= version;
    s.evidence.push(e);
    found.set(name, s);
  };
  for (const path of p.named(/^(docker-)?compose(\.[\w-]+)?\.ya?ml$/)) {
    const doc = p.yaml(path);
    for (const [svc, def] of Object.entries((doc?.services ?? {}) as Record<string, any>)) {
      const ref = typeof def?.image === 'string' ? def.image : '';
      const [image, tag] = ref.replace(/^(docker\.io\/)?(library\/)?/, '').split(':');
      const known = SERVICES.find((s) => s.images.test(image ?? ''));
      if (known)
        note(known.name, tag?.match(/^[\d.]+/)?.[0] ?? null, {
          kind: 'composeImage',
          source: `${path} services.${svc}`,
          detail: ref,
        });
    }
  }
  for (const { lib, source } of libraries(p)) {
    const known = SERVICES.find((s) => s.libraries.test(lib));
    if (known) note(known.name, null, { kind: 'clientLibrary', source, detail: lib });
  }
  for (const { name, source } of envNames) {
    const known = SERVICES.find((s) => s.env.test(name));
    if (known) note(known.name, null, { kind: 'envName', source, detail: name });
  }
  return [...found.values()];
}

/** Variable names from env example files and compose `environment`, with the secrets among them. */
export function detectEnv(p: ProjectFiles): {
  names: Array<{ name: string; source: string }>;
  secrets: SecretFinding[];
} {
  const names: Array<{ name: string; source: string }> = [];
  const secrets = new Map<string, SecretFinding>();
  for (const path of p.named(ENV_EXAMPLES)) {
    for (const { name, value } of dotenvEntries(p.text(path))) {
      names.push({ name, source: path });
      // A credential is a secret even with an example value; it needs one from a person unless the example gives a
      // usable (non-placeholder) one.
      if (SECRET_NAME.test(name)) secrets.set(name, { name, source: path, needsValue: PLACEHOLDER.test(value) });
    }
  }
  for (const path of p.named(/^(docker-)?compose(\.[\w-]+)?\.ya?ml$/)) {
    for (const def of Object.values((p.yaml(path)?.services ?? {}) as Record<string, any>)) {
      const env = def?.environment;
      const entries: Array<[string, unknown]> = Array.isArray(env)
        ? env.map((e: unknown) => String(e).split('=') as [string, string])
        : Object.entries(env ?? {});
      for (const [name, value] of entries) {
        names.push({ name, source: path });
        // `${VAR}` without a default is read from the developer's shell: a value someone must provide.
        const fromShell = typeof value === 'string' && /\$\{?\w+\}?/.test(value) && !/:-/.test(value);
        if (SECRET_NAME.test(name) && (fromShell || value === undefined || value === null) && !secrets.has(name))
          secrets.set(name, { name, source: path, needsValue: true });
      }
    }
  }
  return { names, secrets: [...secrets.values()] };
}
