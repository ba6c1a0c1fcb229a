import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

// Tests that read like user code import 'notifykit' and 'notifykit/testing'; they resolve to the sources.
const source = (path: string) => fileURLToPath(new URL(path, import.meta.url))

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
    include: ['test/**/*.test.ts'],
    // The built package's tests build it first: `npm run test:build` runs them (vitest.build.config.ts).
    exclude: ['test/build/**', '**/node_modules/**'],
    // Worker threads load the test files faster than child processes on this machine; nothing here
    // needs a process of its own (tests that do spawn one).
    pool: 'threads',
    testTimeout: 10_000,
    typecheck: { enabled: true, include: ['test/**/*.test-d.ts'] },
  },
})
