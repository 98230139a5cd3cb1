// ESLint flat config: the rules and ignores are in tools/lint/index.js (why it is a package of its own is said there).
export { default } from 'awp-lint';
