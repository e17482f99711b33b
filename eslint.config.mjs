import js from '@eslint/js';
import { importX } from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '**/coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'error',
    },
  },
  // Every workspace declares what it imports: a package (ours or npm's, types
  // included) imported from a file must be in the package.json nearest to it.
  // Without this, an import works only because npm hoisted someone else's
  // dependency to the root, and breaks in an install of that workspace alone.
  {
    plugins: { 'import-x': importX },
    settings: { 'import-x/extensions': ['.ts', '.tsx', '.js', '.mjs', '.cjs'] },
    rules: {
      'import-x/no-extraneous-dependencies': ['error', {
        includeInternal: true,
        includeTypes: true,
        // Tests, browser tests, the bench's own tests and developer scripts (the client's generator) may use devDependencies.
        devDependencies: ['**/test/**', '**/e2e/**', '**/*.test.ts', '**/*.config.{js,mjs,ts}', '**/scripts/**'],
      }],
    },
  },
);
