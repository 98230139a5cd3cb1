module.exports = {
  // Every file loads as an ES module through tsx: with require(esm) on (Node ≥ 20.19), mocha would require() each
  // file first, and tsx would compile some as CommonJS beside their ES module copies (two module registries, two
  // principal caches). jobs/domains.ts's top-level await needs the ES module loader anyway.
  'node-option': ['import=tsx', 'no-experimental-require-module'],
  require: ['test/setup.ts'],
  reporter: 'test/reporter.cjs',
  timeout: 30000,
  exit: true,
};
