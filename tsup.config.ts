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

// The CommonJS build of notifykit/testing/msw requires msw through msw-module.require.ts, in place of
// its sibling msw-module.ts (a static import): msw's CommonJS build needs require(esm), and that
// module says so, on an older Node, instead of an error pointing into msw. The build that writes
// .cjs files is the CommonJS one (esbuild's own `format` is ESM for both: tsup's tree-shaking makes
// the CommonJS output from it).
const commonJsMsw: Plugin = {
  name: 'commonjs-msw',
  setup(build) {
    if (build.initialOptions.outExtension?.['.js'] !== '.cjs') return
    build.onResolve({ filter: /\/msw-module\.js$/ }, (args) => ({
      path: join(args.resolveDir, dirname(args.path), 'msw-module.require.ts'),
    }))
  },
}

const entry = {
  index: 'src/index.ts',
  testing: 'src/testing/index.ts',
  'testing/msw': 'src/testing/msw/index.ts',
  otel: 'src/otel/index.ts',
}

// Dependencies and peer dependencies stay imports; tsup bundles only our code. msw is an optional
// peer of notifykit/testing/msw alone, `@opentelemetry/api` of notifykit/otel alone: the other
// entries never import them.
const external = ['undici', 'zod', 'msw', '@opentelemetry/api']

/** What every Node bundle shares: the package's and the `notifykit` command's. */
const nodeBundle = {
  sourcemap: true,
  target: 'node20',
  platform: 'node',
  splitting: false,
  treeshake: true,
  // `node:crypto` rather than `crypto`: unambiguous for bundlers and for runtimes other than Node.
  removeNodeProtocol: false,
  external,
} as const

export default defineConfig([
  {
    // dist/index.{js,cjs,d.ts,d.cts}, dist/{testing,testing/msw,otel}.{js,cjs}: Node, undici inside.
    entry,
    format: ['esm', 'cjs'],
    dts: { entry: { index: entry.index } },
    // dist/portable is the other build's, made at the same time.
    clean: ['!portable/**'],
    ...nodeBundle,
    esbuildPlugins: [commonJsMsw],
    // `import.meta.url` for the CommonJS build too: notifykit/testing/msw requires msw from there.
    shims: true,
  },
  {
    // dist/testing.{d.ts,d.cts} and dist/testing/msw.{d.ts,d.cts}, each on its own, as for otel below:
    // one file each, and only the second names msw.
    entry: { testing: entry.testing },
    format: ['esm', 'cjs'],
    dts: { only: true },
    clean: false,
    external,
  },
  {
    entry: { 'testing/msw': entry['testing/msw'] },
    format: ['esm', 'cjs'],
    dts: { only: true },
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
    // dist/cli.js: the `notifykit` command (package.json `bin`), ES module, its shebang kept from the
    // source. Node only; it bundles the fake service, so it loads no other entry of the package.
    entry: { cli: 'src/testing/cli/main.ts' },
    format: ['esm'],
    dts: false,
    clean: false,
    ...nodeBundle,
  },
  {
    // dist/portable/{index,testing,testing/msw,otel}.js: ESM for fetch runtimes; types are the Node build's.
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
