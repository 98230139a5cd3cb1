/** Small repositories, one per ecosystem, as the `files` map POST /v1/environment/configure takes. */
export const PROJECTS: Record<string, Record<string, string>> = {
  node: {
    'package.json': JSON.stringify({
      name: 'shop',
      engines: { node: '>=20' },
      dependencies: { pg: '^8.11.0', ioredis: '^5.3.0', koa: '^2.15.0' },
      scripts: { build: 'tsc', test: 'mocha', migrate: 'knex migrate:latest' },
    }),
    '.nvmrc': 'v20.11.1\n',
    'package-lock.json': '{"lockfileVersion":3}',
    'docker-compose.yml':
      'services:\n  db:\n    image: postgres:16-alpine\n    environment:\n      POSTGRES_PASSWORD: ' +
      '${POSTGRES_PASSWORD}\n  cache:\n    image: redis:7\n',
    '.env.example':
      '# copy to .env\nDATABASE_URL=postgres://localhost:5432/shop\nREDIS_URL=redis://localhost:6379\n' +
      'STRIPE_API_KEY=\nJWT_SECRET=changeme\nPORT=3000\n',
  },
  python: {
    'pyproject.toml':
      '[tool.poetry]\nname = "api"\n\n[tool.poetry.dependencies]\npython = "^3.11"\npsycopg2-binary = ' +
      '"^2.9"\nredis = "^5.0"\n',
    'poetry.lock': '# lock\n',
    '.python-version': '3.11.8\n',
    Dockerfile: 'FROM python:3.11-slim\nRUN pip install poetry\n',
  },
  go: {
    'go.mod':
      'module example.com/svc\n\ngo 1.22\n\nrequire (\n\tgithub.com/jackc/pgx/v5 ' +
      'v5.5.0\n\tgithub.com/redis/go-redis/v9 v9.4.0\n)\n',
    'go.sum': 'github.com/jackc/pgx/v5 v5.5.0 h1:abc=\n',
    Dockerfile: 'FROM golang:1.22-alpine AS build\nFROM gcr.io/distroless/static\n',
  },
  rust: {
    'Cargo.toml':
      '[package]\nname = "svc"\nversion = "0.1.0"\nedition = "2021"\nrust-version = ' +
      '"1.75"\n\n[dependencies]\nsqlx = { version = "0.7", features = ["postgres"] }\ntokio = "1"\n',
    'Cargo.lock': '# lock\n',
    'rust-toolchain.toml': '[toolchain]\nchannel = "1.75"\n',
  },
  ruby: {
    Gemfile: "source 'https://rubygems.org'\nruby '3.2.2'\ngem 'rails', '~> 7.1'\ngem 'pg'\ngem 'sidekiq'\n",
    'Gemfile.lock': 'GEM\n',
    '.ruby-version': 'ruby-3.2.2\n',
    '.env.sample': 'SECRET_KEY_BASE=\n',
  },
  java: {
    'pom.xml':
      '<?xml version="1.0"?>\n<project><properties><java.version>17</java.version></properties>' +
      '<dependencies><dependency><groupId>org.postgresql</groupId><artifactId>postgresql</artifactId></dependency>' +
      '</dependencies></project>',
    Dockerfile: 'FROM eclipse-temurin:17-jre\n',
  },
};
