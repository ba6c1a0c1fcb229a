import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

// The `notifykit` command as built (dist/cli.js), each test in a process of its own on a free port:
// `npm run test:cli`, after `npm run build`. The clients that drive it come from the sources.
const source = (path: string) => fileURLToPath(new URL(path, import.meta.url))

export default defineConfig({
  resolve: {
    alias: [
      { find: /^notifykit\/testing$/, replacement: source('./src/testing/index.ts') },
      { find: /^notifykit$/, replacement: source('./src/index.ts') },
    ],
  },
  test: {
    include: ['test/cli/**/*.cli.ts'],
    testTimeout: 20_000,
  },
})
