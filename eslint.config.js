// ESLint for the Action's TypeScript (src/ and __tests__/): the recommended
// and type-aware rules of typescript-eslint; layout is prettier's job
// (.prettierrc.json), so eslint-config-prettier turns layout rules off.
import js from '@eslint/js'
import prettier from 'eslint-config-prettier'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'engine/', 'examples/', 'scripts/', '*.config.js', '*.config.ts'] },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // An unawaited promise is a step that may run after the job ended.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  prettier,
)
