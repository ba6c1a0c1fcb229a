import type { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { HttpHandler } from 'msw'
import { describe, expect, it, vi } from 'vitest'
import { mswServerSuite, welcomeOptions } from './msw-server-suite.js'

// Where the kit's require('msw') gets msw's CommonJS build while the test imports its ES module build
// (a runtime or bundler that ignores `module-sync`): two copies of msw, whose handlers must still
// work together.
vi.mock('node:module', async (importOriginal) => {
  const original = await importOriginal<typeof import('node:module')>()
  const toCommonJs: typeof createRequire = (from) => {
    const require = original.createRequire(from)
    const mswCommonJs = join(dirname(require.resolve('msw/package.json')), 'lib/core/index.js')
    return Object.assign((id: string) => require(id === 'msw' ? mswCommonJs : id), require)
  }
  return { ...original, createRequire: toCommonJs, default: { ...original, createRequire: toCommonJs } }
})

const { createFakeService } = await import('notifykit/testing')

describe("fake.handlers from msw's CommonJS build in an msw server of its ES module build", () => {
  it('are made by the other copy of msw', () => {
    expect(createFakeService().handlers[0]).not.toBeInstanceOf(HttpHandler)
  })

  mswServerSuite(() => createFakeService(welcomeOptions))
})
