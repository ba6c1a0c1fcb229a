import type { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { HttpHandler } from 'msw'
import { describe, expect, it, vi } from 'vitest'
import { mswServerSuite, welcomeOptions } from './msw-server-suite.js'

// The CommonJS build of notifykit/testing/msw requires msw (msw-module.require.ts in place of
// msw-module.ts, tsup.config.ts). Where that require gets msw's CommonJS build while the test imports
// its ES module build (a runtime or bundler that ignores `module-sync`), there are two copies of msw,
// whose handlers must still work together.
vi.mock('../../src/testing/msw/msw-module.js', () => import('../../src/testing/msw/msw-module.require.js'))
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
const { fakeHandlers } = await import('notifykit/testing/msw')

describe("fakeHandlers(fake) from msw's CommonJS build in an msw server of its ES module build", () => {
  it('are made by the other copy of msw', () => {
    expect(fakeHandlers(createFakeService())[0]).not.toBeInstanceOf(HttpHandler)
  })

  mswServerSuite(() => createFakeService(welcomeOptions))
})
