import { spawnSync } from 'node:child_process'
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

// What users install: the built package. Builds it first (npx tsup, about 25 s) unless dist/ is newer
// than every source file and tsup.config.ts.

const REPO = fileURLToPath(new URL('../../', import.meta.url))
const DIST = join(REPO, 'dist')
const BUILT = ['index.js', 'index.cjs', 'index.d.ts', 'index.d.cts', 'testing.js', 'testing.cjs']
  .concat(['testing.d.ts', 'testing.d.cts', 'portable/index.js', 'portable/testing.js'])
  .concat(['otel.js', 'otel.cjs', 'otel.d.ts', 'otel.d.cts', 'portable/otel.js'])
  .map((file) => join(DIST, file))

beforeAll(() => {
  if (!isStale()) return
  const build = spawnSync(join(REPO, 'node_modules/.bin/tsup'), { cwd: REPO, encoding: 'utf8' })
  if (build.status !== 0) throw new Error(`npx tsup failed:\n${build.stdout}\n${build.stderr}`)
}, 180_000)

function isStale(): boolean {
  const built = BUILT.map((file) => statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? 0)
  const sources = [join(REPO, 'tsup.config.ts'), join(REPO, 'package.json'), ...filesUnder(join(REPO, 'src'))]
  return Math.max(...sources.map((file) => statSync(file).mtimeMs)) > Math.min(...built)
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => join(dir, name))
    .filter((file) => statSync(file).isFile())
}

/** Every module a built file loads: static imports and re-exports, `import()` and `require()`. */
function importsOf(file: string): string[] {
  const code = readFileSync(join(DIST, file), 'utf8')
  const patterns = [
    /^\s*(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]/gm,
    /^\s*import\s*['"]([^'"]+)['"]/gm,
    /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
    /\brequire\(\s*['"]([^'"]+)['"]\s*\)/g,
  ]
  return [
    ...new Set(patterns.flatMap((pattern) => [...code.matchAll(pattern)].map((m) => m[1] ?? ''))),
  ].sort()
}

describe('the portable build', () => {
  it('dist/portable/testing.js loads no undici, no Node module and no msw: zod at most', () => {
    const imports = importsOf('portable/testing.js')
    expect(imports.filter((specifier) => specifier !== 'zod')).toEqual([])
  })

  // Idempotency keys come from `globalThis.crypto.randomUUID()`: a `node:crypto` import would stop the
  // workerd and edge bundles from resolving.
  it('dist/portable/index.js loads nothing but zod', () => {
    expect(importsOf('portable/index.js')).toEqual(['zod'])
  })

  it('dist/portable/otel.js loads nothing but @opentelemetry/api', () => {
    expect(importsOf('portable/otel.js')).toEqual(['@opentelemetry/api'])
  })
})

describe('notifykit/otel', () => {
  it('is an entry of its own: the main entries, Node and portable, never load @opentelemetry/api', () => {
    for (const file of ['index.js', 'index.cjs', 'portable/index.js', 'testing.js', 'portable/testing.js']) {
      expect(importsOf(file)).not.toContain('@opentelemetry/api')
    }
    expect(importsOf('otel.js')).toEqual(['@opentelemetry/api'])
    expect(importsOf('otel.cjs')).toEqual(['@opentelemetry/api'])
  })
})

describe('notifykit/testing where msw is not installed', () => {
  let app: string

  beforeAll(() => {
    app = mkdtempSync(join(tmpdir(), 'notifykit-no-msw-'))
    const modules = join(app, 'node_modules')
    const notifykit = join(modules, 'notifykit')
    // Copies, not links: TypeScript and Node follow a link to the repository, where msw resolves.
    cpSync(join(REPO, 'package.json'), join(notifykit, 'package.json'))
    for (const file of BUILT) cpSync(file, join(notifykit, 'dist', file.slice(DIST.length + 1)))
    mkdirSync(join(modules, '@types'))
    mkdirSync(join(modules, '@opentelemetry'))
    for (const name of ['undici', 'zod', '@types/node', '@opentelemetry/api']) {
      symlinkSync(join(REPO, 'node_modules', name), join(modules, name), 'dir')
    }
    writeFileSync(join(app, 'package.json'), '{ "type": "module" }')
  })

  afterAll(() => rmSync(app, { recursive: true, force: true }))

  it('msw does not resolve there', () => {
    expect(() => createRequire(join(app, 'index.js')).resolve('msw')).toThrow(/Cannot find module 'msw'/)
  })

  it('imports and requires, serves fake.fetch, and names msw when msw handlers are asked for', () => {
    const check = `
      const { NotificationClient } = await import('notifykit')
      const testing = await import('notifykit/testing')
      const fake = testing.createFakeService({ apiKey: 'k', workflows: [{ identifier: 'w', steps: [] }] })
      const client = new NotificationClient({ apiKey: 'k', baseUrl: 'https://fake.test', fetch: fake.fetch })
      const result = await client.events.trigger({ name: 'w', to: 'u1' })
      let handlers
      try { fake.handlers } catch (error) { handlers = error.message }
      const required = (await import('node:module')).createRequire(import.meta.url)('notifykit/testing')
      console.log(JSON.stringify({ status: result.status, handlers, cjs: typeof required.createFakeService }))`
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', check], {
      cwd: app,
      encoding: 'utf8',
    })
    expect(run.stderr).toBe('')
    expect(JSON.parse(run.stdout)).toEqual({
      status: 'no_workflow_steps_defined',
      handlers: 'fake.handlers needs the msw package: npm install --save-dev msw',
      cjs: 'function',
    })
  })

  const CONSUMER = `
    import { type ClientOptions, NotificationClient } from 'notifykit'
    import { createFakeService, type FakeService, type ServedHandler } from 'notifykit/testing'

    const fake: FakeService = createFakeService({ apiKey: 'k' })
    const options: ClientOptions = { apiKey: 'k', baseUrl: 'https://fake.test', fetch: fake.fetch }
    export const client = new NotificationClient(options)
    export const asGlobalFetch: typeof globalThis.fetch = fake.fetch
    export const served: Promise<ServedHandler> = fake.listen()
    export const handlers = fake.handlers

    // The hook types of notifykit/otel are copies of the main entry's: structurally the same.
    import { otelHooks } from 'notifykit/otel'
    import type { NotifyKitHooks } from 'notifykit'
    const logged: NotifyKitHooks = { onCallEnd: ({ call, error }) => console.log(call.operation, error?.code) }
    export const traced = new NotificationClient({ ...options, hooks: [otelHooks({ recordIdempotencyKey: true }), logged] })
  `

  /** tsc on ES module and CommonJS consumers: no DOM library, Node's types, skipLibCheck false (about 20 s). */
  function compileConsumers(): { status: number | null; output: string } {
    writeFileSync(join(app, 'consumer.mts'), CONSUMER)
    writeFileSync(join(app, 'consumer.cts'), CONSUMER)
    const tsconfig = {
      compilerOptions: {
        strict: true,
        module: 'nodenext',
        moduleResolution: 'nodenext',
        target: 'es2022',
        lib: ['es2022'],
        types: ['node'],
        skipLibCheck: false,
        noEmit: true,
      },
      files: ['consumer.mts', 'consumer.cts'],
    }
    writeFileSync(join(app, 'tsconfig.json'), JSON.stringify(tsconfig))
    const tsc = join(REPO, 'node_modules/typescript/bin/tsc')
    const run = spawnSync(process.execPath, [tsc, '-p', app, '--pretty', 'false'], { encoding: 'utf8' })
    return { status: run.status, output: run.stdout + run.stderr }
  }

  it('its types compile without msw and without the DOM library, libraries checked', () => {
    // The @ts-ignore tsup puts above the msw import is what makes it compile: it covers one line only.
    for (const file of ['testing.d.ts', 'testing.d.cts']) {
      const [ignore, mswImport] = readFileSync(join(DIST, file), 'utf8').split('\n')
      expect(ignore).toMatch(/^\/\/ @ts-ignore -- msw is optional/)
      expect(mswImport).toMatch(/^import .* from 'msw';$/)
    }
    expect(compileConsumers()).toEqual({ status: 0, output: '' })
  }, 60_000)
})
