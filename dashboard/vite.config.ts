import { defineConfig } from 'vite';

/**
 * The account dashboard (issue 21): Preact, built to dashboard/dist and served
 * by the web process under /dashboard/. No source maps in the build: the
 * first load stays small and the page never fetches more than it runs.
 */
export default defineConfig({
  root: import.meta.dirname,
  base: '/dashboard/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false, target: 'es2022', reportCompressedSize: false },
  logLevel: 'warn',
});
