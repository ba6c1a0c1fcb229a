import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it, vi } from 'vitest'

// `import 'notifykit'` must be free: serverless cold starts pay for anything done at load time, and
// a library that reads the environment or opens a pool on import surprises everyone who only wanted
// a type or an error class. Work starts when a client is constructed, and only then.

const SRC_DIR = fileURLToPath(new URL('../../src/', import.meta.url))

const agents = vi.hoisted(() => ({ constructed: 0 }))

vi.mock('undici', async (importOriginal) => {
  const undici = await importOriginal<typeof import('undici')>()
  class CountingAgent extends undici.Agent {
    constructor(...args: ConstructorParameters<typeof undici.Agent>) {
      agents.constructed++
      super(...args)
    }
  }
  return { ...undici, Agent: CountingAgent }
})

/** Replaces `process.env` with a proxy that records every variable our own source files read. */
function watchEnvironmentReads(): { reads: string[]; restore: () => void } {
  const realEnv = process.env
  const reads: string[] = []
  process.env = new Proxy(realEnv, {
    get(target, key, receiver) {
      if (typeof key === 'string' && new Error().stack?.includes(SRC_DIR)) reads.push(key)
      return Reflect.get(target, key, receiver)
    },
  })
  return {
    reads,
    restore: () => {
      process.env = realEnv
    },
  }
}

afterEach(() => {
  vi.unstubAllEnvs()
})

describe('importing notifykit', () => {
  it('creates no connection pool and reads no environment variable until a client is constructed', async () => {
    vi.stubEnv('NOTIFYKIT_API_KEY', 'sk_test_load')
    vi.stubEnv('NOTIFYKIT_BASE_URL', 'https://api.test')
    vi.resetModules()
    const env = watchEnvironmentReads()
    try {
      const notifykit = await import('../../src/index.js')
      expect(typeof notifykit.NotificationClient).toBe('function')
      expect(env.reads).toEqual([])
      expect(agents.constructed).toBe(0)

      // The probes work: constructing a client is what reads the variables and makes the pool.
      const client = new notifykit.NotificationClient()
      expect(env.reads).toEqual(expect.arrayContaining(['NOTIFYKIT_API_KEY', 'NOTIFYKIT_BASE_URL']))
      expect(agents.constructed).toBe(1)
      await client.close()
    } finally {
      env.restore()
    }
  })

  it('leaves no timer, socket or other handle behind', async () => {
    vi.resetModules()
    const before = process.getActiveResourcesInfo().length
    await import('../../src/index.js')
    expect(process.getActiveResourcesInfo().length).toBe(before)
  })

  it('does not load the test kit: neither src/testing nor msw is in the graph of the main entry', async () => {
    const { readFile } = await import('node:fs/promises')
    const seen = new Set<string>()
    const externals = new Set<string>()
    const queue = [`${SRC_DIR}index.ts`]
    for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
      if (seen.has(file)) continue
      seen.add(file)
      const source = await readFile(file, 'utf8')
      for (const [, specifier] of source.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s+'([^']+)'/g)) {
        if (specifier === undefined) continue
        if (specifier.startsWith('.')) {
          queue.push(fileURLToPath(new URL(specifier.replace(/\.js$/, '.ts'), `file://${file}`)))
        } else {
          externals.add(specifier)
        }
      }
    }
    expect(seen.size).toBeGreaterThan(10)
    expect([...seen].filter((file) => file.startsWith(`${SRC_DIR}testing/`))).toEqual([])
    // Only Node built-ins and the two runtime dependencies: no msw, nor anything else a user lacks.
    // By package: the schemas load `zod/mini` and `zod/locales`, both of the zod dependency.
    const packages = new Set(
      [...externals]
        .filter((specifier) => !specifier.startsWith('node:'))
        .map((specifier) => specifier.split('/')[0]),
    )
    expect([...packages].sort()).toEqual(['undici', 'zod'])
  })
})
