import type { createRequire } from 'node:module'
import { afterEach, describe, expect, it, vi } from 'vitest'

// msw is an optional peer dependency: here it is missing. An import of msw fails, and so does the
// require of the CommonJS build of notifykit/testing/msw (msw-module.require.ts), with what the test
// sets.
vi.mock('msw', () => {
  throw new Error('msw is not installed')
})

let requireFailure: Error | undefined
vi.mock('node:module', async (importOriginal) => {
  const original = await importOriginal<typeof import('node:module')>()
  const failing: typeof createRequire = (from) => {
    const require = original.createRequire(from)
    return Object.assign((id: string) => {
      if (id === 'msw' && requireFailure) throw requireFailure
      return require(id)
    }, require)
  }
  return { ...original, createRequire: failing, default: { ...original, createRequire: failing } }
})

afterEach(() => {
  requireFailure = undefined
  vi.resetModules()
})

describe('notifykit/testing without msw', () => {
  it('loads, and the fake works without it: it never imports msw', async () => {
    const { createFakeService } = await import('notifykit/testing')
    const fake = createFakeService()
    const response = await fake.fetch('https://fake.test/v1/notifications/000000000000000000000000', {
      headers: { authorization: 'ApiKey k' },
    })
    expect(response.status).toBe(404)
    expect(fake.dispatcher).toBeDefined()
  })
})

describe('the CommonJS build of notifykit/testing/msw, when it cannot require msw', () => {
  const requireMsw = () => import('../../src/testing/msw/msw-module.require.js')

  it('names the package to install where msw is missing', async () => {
    requireFailure = Object.assign(new Error("Cannot find module 'msw'\nRequire stack:\n- /app/x.cjs"), {
      code: 'MODULE_NOT_FOUND',
    })
    await expect(requireMsw()).rejects.toThrow(
      'notifykit/testing/msw needs the msw package: npm install --save-dev msw',
    )
  })

  it("names the Node it needs where require() cannot load msw's ES module dependencies", async () => {
    // Node 20.18: msw's CommonJS build requires rettime, an ES module.
    requireFailure = Object.assign(
      new Error('require() of ES Module rettime/build/index.mjs not supported.'),
      {
        code: 'ERR_REQUIRE_ESM',
      },
    )
    const error = await requireMsw().catch((failure: unknown) => failure)
    expect(error).toMatchObject({
      code: 'NOTIFYKIT_CONFIGURATION',
      message: expect.stringMatching(/needs Node 20\.19\+ or 22\.12\+ \(or import notifykit\/testing\/msw/),
      cause: requireFailure,
    })
  })

  it('lets any other error through as it is', async () => {
    requireFailure = new SyntaxError('Unexpected token')
    await expect(requireMsw()).rejects.toBe(requireFailure)
  })
})
