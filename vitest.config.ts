import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 10_000,
    typecheck: { enabled: true, include: ['test/**/*.test-d.ts'] },
  },
})
