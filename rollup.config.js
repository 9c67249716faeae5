// Bundles src/ and its dependencies into dist/index.js, the one file that
// action.yml runs for both main and post.
import commonjs from '@rollup/plugin-commonjs'
import json from '@rollup/plugin-json'
import { nodeResolve } from '@rollup/plugin-node-resolve'
import typescript from '@rollup/plugin-typescript'

export default {
  input: 'src/index.ts',
  output: { file: 'dist/index.js', format: 'es', esModule: true, inlineDynamicImports: true, sourcemap: false },
  plugins: [typescript({ tsconfig: './tsconfig.build.json', module: 'NodeNext' }), nodeResolve({ preferBuiltins: true, exportConditions: ['node'] }), commonjs(), json()],
  onwarn(warning, warn) {
    // The toolkit's dependencies have known circular imports and `this` at module level.
    if (warning.code === 'CIRCULAR_DEPENDENCY' || warning.code === 'THIS_IS_UNDEFINED') return
    warn(warning)
  }
}
