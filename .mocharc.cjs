module.exports = {
  'node-option': ['import=tsx'],
  require: ['test/setup.ts'],
  spec: ['test/**/*.test.ts'],
  reporter: 'test/reporter.cjs',
  timeout: 30000,
  exit: true,
};
