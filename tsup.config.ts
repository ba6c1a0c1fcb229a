import { dirname, join } from 'node:path'
import type { Plugin } from 'esbuild'
import { defineConfig } from 'tsup'

// The portable build: the same sources, with every `platform/node.js` import resolved to its sibling
// `platform/fetch.ts`, so that its module graph holds neither `undici` nor a `node:` module. Export
// conditions in package.json pick it for workerd, edge, Bun, Deno and browsers.
const portablePlatform: Plugin = {
  name: 'portable-platform',
  setup(build) {
    build.onResolve({ filter: /\/platform\/node\.js$/ }, (args) => ({
      path: join(args.resolveDir, dirname(args.path), 'fetch.ts'),
    }))
  },
}

const entry = { index: 'src/index.ts', testing: 'src/testing/index.ts', otel: 'src/otel/index.ts' }

// Dependencies and peer dependencies stay imports; tsup bundles only our code. `@opentelemetry/api`
// is an optional peer of notifykit/otel alone: the other entries never import it.
const external = ['undici', 'zod', 'msw', '@opentelemetry/api']

// msw is an optional peer dependency of notifykit/testing, yet the types of `fake.handlers` and
// `createMswDispatcher` are msw's own (its handler classes have private members: no structural type
// can pass for them). Where msw is missing, this makes its import `any` instead of an error, so the
// rest of the test kit's types still compile. It only covers the line after it: the msw import comes
// first in dist/testing.d.ts (checked by test/testing/build-output.test.ts).
const OPTIONAL_MSW_TYPES =
  '// @ts-ignore -- msw is optional: without it, its types are `any` and the rest of the test kit compiles.'

export default defineConfig([
  {
    // dist/index.{js,cjs,d.ts,d.cts}, dist/{testing,otel}.{js,cjs}: Node, undici inside.
    entry,
    format: ['esm', 'cjs'],
    dts: { entry: { index: entry.index } },
    // dist/portable is the other build's, made at the same time.
    clean: ['!portable/**'],
    sourcemap: true,
    target: 'node20',
    platform: 'node',
    splitting: false,
    treeshake: true,
    // `node:crypto` rather than `crypto`: unambiguous for bundlers and for runtimes other than Node.
    removeNodeProtocol: false,
    external,
    // `import.meta.url` for the CommonJS build too: the test kit requires its optional msw from there.
    shims: true,
  },
  {
    // dist/testing.{d.ts,d.cts}, on their own for their banner.
    entry: { testing: entry.testing },
    format: ['esm', 'cjs'],
    dts: { only: true, banner: OPTIONAL_MSW_TYPES },
    clean: false,
    external,
  },
  {
    // dist/otel.{d.ts,d.cts}, on their own so that dist/index.d.ts stays one file: the hook types it
    // shares with the main entry are copied in, and being structural, they are the same types.
    entry: { otel: entry.otel },
    format: ['esm', 'cjs'],
    dts: { only: true },
    clean: false,
    external,
  },
  {
    // dist/portable/{index,testing,otel}.js: ESM for fetch runtimes; types are the Node build's.
    entry,
    outDir: 'dist/portable',
    format: ['esm'],
    dts: false,
    clean: true,
    sourcemap: true,
    target: 'es2022',
    platform: 'neutral',
    splitting: false,
    treeshake: true,
    external: ['zod', 'msw', '@opentelemetry/api'],
    esbuildPlugins: [portablePlatform],
  },
])
