import type { createRequire } from 'node:module'
import { describe, expect, it, vi } from 'vitest'

// msw is an optional peer dependency: here it is missing, as Node's require reports it.
vi.mock('node:module', async (importOriginal) => {
  const original = await importOriginal<typeof import('node:module')>()
  const withoutMsw: typeof createRequire = (from) => {
    const require = original.createRequire(from)
    return Object.assign((id: string) => {
      if (id !== 'msw') return require(id)
      throw Object.assign(new Error("Cannot find module 'msw'"), { code: 'MODULE_NOT_FOUND' })
    }, require)
  }
  return { ...original, createRequire: withoutMsw, default: { ...original, createRequire: withoutMsw } }
})

const { createFakeService, createMswDispatcher } = await import('notifykit/testing')

describe('notifykit/testing without msw', () => {
  it('loads, and the fake works without it', async () => {
    const fake = createFakeService()
    const response = await fake.fetch('https://fake.test/v1/notifications/x', {
      headers: { authorization: 'ApiKey k' },
    })
    expect(response.status).toBe(404)
    expect(fake.dispatcher).toBeDefined()
  })

  it('names the package to install when msw handlers are asked for', () => {
    expect(() => createFakeService().handlers).toThrow(
      'fake.handlers needs the msw package: npm install --save-dev msw',
    )
    expect(() => createMswDispatcher([])).toThrow(
      'createMswDispatcher needs the msw package: npm install --save-dev msw',
    )
  })
})
