// The project's ESLint flat config. It lives in its own package (tools/lint) so that typescript-eslint,
// which needs the TypeScript 5/6 JS compiler API, resolves `typescript` 6 from tools/lint/node_modules while
// the project itself compiles with TypeScript 7 (no JS API). The root eslint.config.js re-exports it.
import { createRequire } from 'node:module';
import path from 'node:path';
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

const root = path.resolve(import.meta.dirname, '../..');

// npm places a package that peer-depends on `typescript` wherever that peer resolves; should one of them land
// beside the root's TypeScript 7 (see the ts-api-utils override in package.json), its rules would break in odd
// ways. Fail at once, naming it, instead.
const here = createRequire(import.meta.url);
for (const pkg of ['typescript-eslint', '@typescript-eslint/typescript-estree', 'ts-api-utils']) {
  const from = createRequire(here.resolve(pkg));
  const { version } = from('typescript/package.json');
  if (Number(version.split('.')[0]) >= 7) {
    throw new Error(`${pkg} resolves typescript ${version}, which has no JS compiler API: re-run npm install`);
  }
}

// Set AWP_LINT_RECOMMENDED=1 to add typescript-eslint's recommended set (a survey, not enforced yet).
const recommended =
  process.env.AWP_LINT_RECOMMENDED === '1' ? [js.configs.recommended, ...tseslint.configs.recommended] : [];

export default defineConfig(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      'coverage/**',
      '.data/**',
      'test/fixtures/**',
      'bench/peers/**',
      'docs/**',
    ],
  },
  ...recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: {
        // Each file is checked in the program of its nearest tsconfig.json (root or dashboard/).
        // dashboard/vite.config.ts belongs to no tsconfig: it gets the service's default program.
        projectService: { allowDefaultProject: ['dashboard/vite.config.ts'] },
        tsconfigRootDir: root,
      },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/consistent-type-imports': [
        'error',
        // `typeof import('x')` stays allowed: the code uses it to type lazily imported modules.
        { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false },
      ],
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { considerDefaultExhaustiveForUnions: true, requireDefaultForNonUnion: false },
      ],
    },
  },
);
