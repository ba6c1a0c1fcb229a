import { defineConfig } from 'vitest/config'

// The tests of the built package (dist/): they build it first when it is stale, so they run apart
// from `npm test`, as `npm run test:build`.
export default defineConfig({
  test: {
    include: ['test/build/**/*.test.ts'],
    testTimeout: 10_000,
  },
})
