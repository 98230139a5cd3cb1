module.exports = {
  'node-option': ['import=tsx'],
  require: ['test/setup.ts'],
  reporter: 'test/reporter.cjs',
  timeout: 30000,
  exit: true,
};
