import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

// Tests that read like user code import 'notifykit' and 'notifykit/testing'; they resolve to the sources.
const source = (path: string) => fileURLToPath(new URL(path, import.meta.url))

// Files that each need a worker of their own: those that mock modules or reset the module registry,
// and the one that watches sockets Node's fetch closes, which failed now and then (2 full runs of 7)
// in a worker that earlier files had used: Node's fetch keeps one pool per worker.
const OWN_MODULES = [
  'test/core/errors.test.ts',
  'test/package/load.test.ts',
  'test/schemas/deferred-schemas.test.ts',
  'test/security/response-size.test.ts',
  'test/testing/msw-missing.test.ts',
  'test/testing/msw-server-cjs-copy.test.ts',
  'test/testing/portable-plugins.test.ts',
]
// The built package's tests build it first: `npm run test:build` runs them (vitest.build.config.ts).
const EXCLUDE = ['test/build/**', '**/node_modules/**']

export default defineConfig({
  resolve: {
    alias: [
      { find: /^notifykit\/testing\/msw$/, replacement: source('./src/testing/msw/index.ts') },
      { find: /^notifykit\/testing$/, replacement: source('./src/testing/index.ts') },
      { find: /^notifykit\/otel$/, replacement: source('./src/otel/index.ts') },
      { find: /^notifykit$/, replacement: source('./src/index.ts') },
    ],
  },
  test: {
    // Worker threads load the test files faster than child processes on this machine; nothing here
    // needs a process of its own (tests that do spawn one).
    pool: 'threads',
    testTimeout: 10_000,
    projects: [
      {
        // Most files share the modules a worker has loaded: loading src/ and its dependencies again
        // for every file was more than half of the suite's time. A test leaves no state behind it.
        extends: true,
        test: {
          name: 'shared',
          include: ['test/**/*.test.ts'],
          exclude: [...EXCLUDE, ...OWN_MODULES],
          isolate: false,
          typecheck: { enabled: true, include: ['test/**/*.test-d.ts'] },
        },
      },
      { extends: true, test: { name: 'own-modules', include: OWN_MODULES, exclude: EXCLUDE, isolate: true } },
    ],
  },
})
