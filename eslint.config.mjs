// ESLint (flat config): the house's import boundaries (scripts/lint/boundaries.mjs) plus a small set
// of rules that catch real bugs. Style is prettier's job (.prettierrc.json), unused code knip's
// (knip.json), types tsc's. Run by `npm run lint`, the first tier of `npm test`.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import house from './scripts/lint/boundaries.mjs';

/** The rules of eslint:recommended that find mistakes, not style, and that the code base keeps. */
const BUG_RULES = [
  'no-async-promise-executor',
  'no-compare-neg-zero',
  'no-cond-assign',
  'no-control-regex',
  'no-dupe-else-if',
  'no-dupe-keys',
  'no-duplicate-case',
  'no-self-assign',
  'no-sparse-arrays',
  'no-unreachable',
  'no-unsafe-finally',
  'no-unsafe-negation',
  'use-isnan',
  'valid-typeof',
];
const bugs = {
  ...Object.fromEntries(BUG_RULES.map((r) => [r, js.configs.recommended.rules[r] ?? `not in eslint:recommended: ${r}`])),
  'no-cond-assign': ['error', 'except-parens'],
  'no-self-compare': 'error',
};

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'out/', '.bench/', '.demo/', '.lab/', '.test-artifacts/', 'test/fixtures/'] },
  {
    files: ['src/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts', 'lab/**/*.ts'],
    languageOptions: { parser: tseslint.parser },
    plugins: { house, '@typescript-eslint': tseslint.plugin },
    rules: { 'house/boundaries': 'error', ...bugs },
  },
  {
    // The shipped code, type-aware: a promise nobody awaits or catches loses its error (mark a
    // deliberate fire-and-forget with `void`).
    files: ['src/**/*.ts'],
    languageOptions: { parser: tseslint.parser, parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: { '@typescript-eslint/no-floating-promises': 'error', '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }] },
  },
);
