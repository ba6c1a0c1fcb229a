import { defineConfig } from 'tsup'

export default defineConfig({
  // One file per entry and format: dist/index.{js,cjs,d.ts,d.cts}, dist/testing.{js,cjs,d.ts,d.cts}.
  // `notifykit` never imports from src/testing, so msw is only ever loaded by `notifykit/testing`.
  entry: { index: 'src/index.ts', testing: 'src/testing/index.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node20',
  platform: 'node',
  splitting: false,
  treeshake: true,
  // `node:crypto` rather than `crypto`: unambiguous for bundlers and for runtimes other than Node.
  removeNodeProtocol: false,
  // Dependencies and peer dependencies (undici, zod, msw) stay imports; tsup bundles only our code.
  external: ['undici', 'zod', 'msw'],
})
