/** Prints the README's configuration table from the config schema (the one list of env vars). */
import { ConfigSchema } from '../shared/config.js';

const rows = Object.entries(ConfigSchema.properties).map(([name, schema]) => {
  const s = schema as { default?: unknown; description?: string };
  const def = s.default === undefined ? '—' : `\`${String(s.default)}\``;
  return `| \`${name}\` | ${def} | ${s.description ?? ''} |`;
});
console.log(['| Variable | Default | Meaning |', '|---|---|---|', ...rows].join('\n'));
