#!/usr/bin/env node
// `npx awp …`: the command line runs from its TypeScript source through tsx (a dependency of the service), as the
// service's own scripts do, so there is nothing to build first.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../cli/main.ts');
process.exitCode = await main(process.argv.slice(2), {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  env: process.env,
});
