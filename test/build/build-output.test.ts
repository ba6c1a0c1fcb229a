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
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

// What users install: the built package. Builds it first (npx tsup) unless dist/ is newer than every
// source file and tsup.config.ts. Not part of `npm test`: `npm run test:build` runs it.

const REPO = fileURLToPath(new URL('../../', import.meta.url))
const DIST = join(REPO, 'dist')
const BUILT = ['index.js', 'index.cjs', 'index.d.ts', 'index.d.cts', 'testing.js', 'testing.cjs']
  .concat(['testing.d.ts', 'testing.d.cts', 'portable/index.js', 'portable/testing.js'])
  .concat(['testing/msw.js', 'testing/msw.cjs', 'testing/msw.d.ts', 'testing/msw.d.cts'])
  .concat(['portable/testing/msw.js'])
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

/** `zod` or one of its entry points (`zod/mini`, `zod/locales`). */
function isZod(specifier: string): boolean {
  return specifier === 'zod' || specifier.startsWith('zod/')
}

describe('the portable build', () => {
  it('dist/portable/testing.js loads no undici, no Node module and no msw: zod at most', () => {
    const imports = importsOf('portable/testing.js')
    expect(imports.filter((specifier) => !isZod(specifier))).toEqual([])
  })

  // Idempotency keys come from `globalThis.crypto.randomUUID()`: a `node:crypto` import would stop the
  // workerd and edge bundles from resolving.
  it('dist/portable/index.js loads nothing but zod', () => {
    const imports = importsOf('portable/index.js')
    expect(imports.length).toBeGreaterThan(0)
    expect(imports.filter((specifier) => !isZod(specifier))).toEqual([])
  })

  it('dist/portable/otel.js loads nothing but @opentelemetry/api', () => {
    expect(importsOf('portable/otel.js')).toEqual(['@opentelemetry/api'])
  })

  it('dist/portable/testing/msw.js loads msw, and zod at most', () => {
    const imports = importsOf('portable/testing/msw.js')
    expect(imports).toContain('msw')
    expect(imports.filter((specifier) => specifier !== 'msw' && !isZod(specifier))).toEqual([])
  })
})

describe('notifykit/testing/msw', () => {
  it('is the only entry that loads msw: an import in the ES module build, a require in the CommonJS one', () => {
    for (const file of ['index.js', 'index.cjs', 'testing.js', 'testing.cjs', 'portable/testing.js']) {
      expect(importsOf(file)).not.toContain('msw')
    }
    expect(importsOf('testing/msw.js')).toContain('msw')
    // The CommonJS build requires msw through createRequire (msw-module.require.ts), to say what
    // Node it needs where msw's CommonJS build cannot load.
    expect(readFileSync(join(DIST, 'testing/msw.cjs'), 'utf8')).toMatch(
      /createRequire\([^)]*\)\(['"]msw['"]\)/,
    )
    for (const file of ['testing.d.ts', 'testing.d.cts']) {
      expect(readFileSync(join(DIST, file), 'utf8')).not.toMatch(/from ['"]msw['"]/)
    }
    for (const file of ['testing/msw.d.ts', 'testing/msw.d.cts']) {
      expect(readFileSync(join(DIST, file), 'utf8')).toMatch(/^import \{[^}]*\} from 'msw';$/m)
    }
  })

  it('answers from the fake through msw, imported and required', () => {
    const check = `
      const { createRequire } = await import('node:module')
      const require = createRequire(import.meta.url)
      const { NotificationClient } = await import('./dist/index.js')
      const { createFakeService } = await import('./dist/testing.js')
      const outcomes = []
      for (const msw of [await import('./dist/testing/msw.js'), require('./dist/testing/msw.cjs')]) {
        const fake = createFakeService({ apiKey: 'k', workflows: [{ identifier: 'w', steps: [{ type: 'in_app' }] }] })
        const dispatcher = msw.createMswDispatcher(msw.fakeHandlers(fake), { onUnhandledRequest: 'error' })
        const client = new NotificationClient({ apiKey: 'k', baseUrl: 'https://fake.test', dispatcher })
        outcomes.push((await client.events.trigger({ name: 'w', to: 'u1' })).status, fake.notifications.length)
      }
      console.log(JSON.stringify(outcomes))`
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', check], {
      cwd: REPO,
      encoding: 'utf8',
    })
    expect(run.stderr).toBe('')
    expect(JSON.parse(run.stdout)).toEqual(['processed', 1, 'processed', 1])
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

/**
 * A user's app in a temporary folder (an ES module package): the built package copied into its
 * node_modules, and `links` linked from the repository's. Copies, not links, for notifykit:
 * TypeScript and Node follow a link to the repository, where msw resolves.
 */
function appWithBuiltPackage(prefix: string, links: string[]): string {
  const app = mkdtempSync(join(tmpdir(), prefix))
  const modules = join(app, 'node_modules')
  const notifykit = join(modules, 'notifykit')
  cpSync(join(REPO, 'package.json'), join(notifykit, 'package.json'))
  for (const file of BUILT) cpSync(file, join(notifykit, 'dist', file.slice(DIST.length + 1)))
  for (const name of links) {
    mkdirSync(dirname(join(modules, name)), { recursive: true })
    symlinkSync(join(REPO, 'node_modules', name), join(modules, name), 'dir')
  }
  writeFileSync(join(app, 'package.json'), '{ "type": "module" }')
  return app
}

describe('notifykit/testing where msw is not installed', () => {
  let app: string

  beforeAll(() => {
    app = appWithBuiltPackage('notifykit-no-msw-', ['undici', 'zod', '@types/node', '@opentelemetry/api'])
  })

  afterAll(() => rmSync(app, { recursive: true, force: true }))

  it('msw does not resolve there', () => {
    expect(() => createRequire(join(app, 'index.js')).resolve('msw')).toThrow(/Cannot find module 'msw'/)
  })

  it('imports and requires notifykit/testing, serves fake.fetch; notifykit/testing/msw names msw', () => {
    const check = `
      const { NotificationClient } = await import('notifykit')
      const testing = await import('notifykit/testing')
      const fake = testing.createFakeService({ apiKey: 'k', workflows: [{ identifier: 'w', active: false }] })
      const client = new NotificationClient({ apiKey: 'k', baseUrl: 'https://fake.test', fetch: fake.fetch })
      // An inactive workflow: the trigger rejects with TriggerNotSentError, which has the status.
      const result = await client.events.trigger({ name: 'w', to: 'u1' }).catch((error) => error)
      const require = (await import('node:module')).createRequire(import.meta.url)
      const required = require('notifykit/testing')
      const imported = await import('notifykit/testing/msw').catch((error) => error.message)
      let requiredMsw
      try { require('notifykit/testing/msw') } catch (error) { requiredMsw = error.message }
      console.log(JSON.stringify({ status: result.status, cjs: typeof required.createFakeService, imported, requiredMsw }))`
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', check], {
      cwd: app,
      encoding: 'utf8',
    })
    expect(run.stderr).toBe('')
    expect(JSON.parse(run.stdout)).toEqual({
      status: 'trigger_not_active',
      cjs: 'function',
      // Node's own error for a missing import: it names msw.
      imported: expect.stringMatching(/^Cannot find package 'msw' imported from .*testing[\\/]msw\.js$/),
      requiredMsw: 'notifykit/testing/msw needs the msw package: npm install --save-dev msw',
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

  /** An app as strict as they come: `exactOptionalPropertyTypes`, reading its settings from the environment. */
  const STRICT_CONSUMER = `
    import { NotificationClient, RateLimitError, type RequestOptions } from 'notifykit'

    const client = new NotificationClient({
      apiKey: process.env.NOTIFYKIT_API_KEY,
      baseUrl: process.env.NOTIFYKIT_BASE_URL,
      timeoutMs: undefined,
    })
    const options: RequestOptions = { idempotencyKey: process.env.ORDER_KEY, signal: undefined }

    export async function run(): Promise<string | undefined> {
      const result = await client.events.trigger({ name: 'welcome', to: 'user-1', transactionId: process.env.TX }, options)
      await client.events.triggerBulk([{ name: 'welcome', to: 'user-1' }], { concurrency: undefined, onProgress: undefined })
      // @ts-expect-error misspelt: a compile error, not an \`unknown\`
      result.transactonId
      try {
        await client.events.cancel('tx', { timeoutMs: undefined })
      } catch (error) {
        if (error instanceof RateLimitError) {
          const code: 'NOTIFYKIT_RATE_LIMIT' = error.code
          return code
        }
      }
      return result.transactionId
    }
  `

  it('compiles for an app with exactOptionalPropertyTypes that passes process.env values as options', () => {
    writeFileSync(join(app, 'strict.mts'), STRICT_CONSUMER)
    const tsconfig = {
      compilerOptions: {
        strict: true,
        exactOptionalPropertyTypes: true,
        noUncheckedIndexedAccess: true,
        module: 'node16',
        moduleResolution: 'node16',
        target: 'es2022',
        lib: ['es2022'],
        types: ['node'],
        skipLibCheck: true,
        noEmit: true,
      },
      files: ['strict.mts'],
    }
    writeFileSync(join(app, 'tsconfig.strict.json'), JSON.stringify(tsconfig))
    const tsc = join(REPO, 'node_modules/typescript/bin/tsc')
    const run = spawnSync(
      process.execPath,
      [tsc, '-p', join(app, 'tsconfig.strict.json'), '--pretty', 'false'],
      {
        encoding: 'utf8',
      },
    )
    expect({ status: run.status, output: run.stdout + run.stderr }).toEqual({ status: 0, output: '' })
  }, 60_000)

  it('its types compile without msw and without the DOM library, libraries checked', () => {
    expect(compileConsumers()).toEqual({ status: 0, output: '' })
  }, 60_000)
})

describe("a user's project with msw installed: no DOM library, libraries checked", () => {
  // What a user compiled: msw installed (an optional peer), `skipLibCheck: false`, `lib: ["ES2022"]`
  // without DOM and `types: []`. msw's declarations need the DOM library, so no entry that only
  // uses fake.fetch or fake.listen() may bring them into the compile.
  let app: string

  beforeAll(() => {
    // msw linked into the repository's node_modules: its own dependencies resolve from there.
    app = appWithBuiltPackage('notifykit-msw-user-', ['undici', 'zod', 'msw', '@types/node'])
  })

  afterAll(() => rmSync(app, { recursive: true, force: true }))

  /** tsc over `files` (written into the app) with the user's settings; the errors, one a line. */
  function compile(files: Record<string, string>, lib: string[]): string[] {
    for (const [name, source] of Object.entries(files)) writeFileSync(join(app, name), source)
    const tsconfig = {
      compilerOptions: {
        strict: true,
        module: 'node16',
        moduleResolution: 'node16',
        target: 'es2022',
        lib,
        types: [],
        skipLibCheck: false,
        noEmit: true,
      },
      files: Object.keys(files),
    }
    writeFileSync(join(app, 'tsconfig.json'), JSON.stringify(tsconfig))
    const tsc = join(REPO, 'node_modules/typescript/bin/tsc')
    const run = spawnSync(process.execPath, [tsc, '-p', app, '--pretty', 'false'], { encoding: 'utf8' })
    return (run.stdout + run.stderr).split('\n').filter((line) => /error TS\d+/.test(line))
  }

  const TEST_KIT_USER = `
    import { NotificationClient } from 'notifykit'
    import { createFakeService, type ServedHandler } from 'notifykit/testing'

    const fake = createFakeService({ apiKey: 'k', workflows: [{ identifier: 'welcome', steps: [{ type: 'in_app' }] }] })
    export const client = new NotificationClient({ apiKey: 'k', baseUrl: 'https://fake.test', fetch: fake.fetch })
    export const served: Promise<ServedHandler> = fake.listen()
  `

  it('notifykit/testing, from ES modules and CommonJS: no error', () => {
    expect(compile({ 'kit.mts': TEST_KIT_USER, 'kit.cts': TEST_KIT_USER }, ['es2022'])).toEqual([])
  }, 60_000)

  const MSW_USER = `
    import { http, HttpResponse } from 'msw'
    import { setupServer } from 'msw/node'
    import { NotificationClient } from 'notifykit'
    import { createFakeService } from 'notifykit/testing'
    import { createMswDispatcher, fakeHandlers, type MswDispatcherOptions } from 'notifykit/testing/msw'

    const fake = createFakeService({ apiKey: 'k' })
    const server = setupServer(...fakeHandlers(fake))
    const options: MswDispatcherOptions = {
      onUnhandledRequest: (request, print) => (request.method === 'GET' ? print.error() : print.warning()),
    }
    export const client = new NotificationClient({
      apiKey: 'k',
      baseUrl: 'https://fake.test',
      dispatcher: createMswDispatcher(server, options),
    })
    export const fixed = createMswDispatcher([http.get('*/x', () => HttpResponse.json({}))], { onUnhandledRequest: 'error' })
  `

  // msw's declarations need the DOM library (without it: about 30 errors, every one inside msw,
  // @mswjs/interceptors and rettime), as they do for any code that imports msw; from CommonJS, msw's
  // own types also import ES modules (TS1479 inside msw), whatever imports them.
  it('notifykit/testing/msw, from an ES module with the DOM library, as msw needs: no error', () => {
    expect(compile({ 'msw.mts': MSW_USER }, ['es2022', 'dom'])).toEqual([])
  }, 60_000)
})

describe('zod in the Node build', () => {
  // zod is an ordinary dependency, imported where it is used: the package's schemas are zod schemas
  // an application composes with its own, and an application that imports zod as an ES module
  // shares the one copy with the ES module build.
  const script = (load: string) => `
    const { NotificationClient, RequestValidationError, TimeRangeSchema, TriggerResultSchema, TriggerEventRequestSchema } = ${load}
    const { createRequire } = await import('node:module')
    const zodFilesRequired = () => Object.keys(createRequire(import.meta.url).cache)
      .filter((file) => file.includes('/node_modules/zod/')).length
    const answer = { data: { acknowledged: true, status: 'processed', transactionId: 'tx-1' } }
    const client = new NotificationClient({
      apiKey: 'k', baseUrl: 'https://api.test', timeoutMs: 5000,
      fetch: async () => new Response(JSON.stringify(answer), { status: 201 }),
    })
    const event = { name: 'welcome', to: { subscriberId: 'u-1', email: null }, payload: { plan: 'pro' } }
    const result = await client.events.trigger(event, { maxRetries: 1 })
    const refusal = await client.events.trigger({ name: 'welcome', to: '' }).catch((error) => error)
    const z = await import('zod')
    const composed = z.object({ result: TriggerResultSchema }).parse({ result: answer.data })
    console.log(JSON.stringify({
      transactionId: result.transactionId,
      refused: refusal instanceof RequestValidationError,
      issues: refusal.issues,
      composed: composed.result.transactionId,
      jsonSchemaRequired: z.toJSONSchema(TimeRangeSchema).required,
      parsedByItself: TriggerEventRequestSchema.safeParse({ name: '', to: 'u' }).error?.issues[0]?.message,
      zodFilesRequired: zodFilesRequired(),
    }))`
  const expected = {
    transactionId: 'tx-1',
    refused: true,
    issues: [{ path: ['to'], message: 'Must not be empty' }],
    composed: 'tx-1',
    jsonSchemaRequired: ['start', 'end'],
    parsedByItself: 'Must not be empty',
  }

  const run = (load: string) => {
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script(load)], {
      cwd: REPO,
      encoding: 'utf8',
    })
    expect(child.stderr).toBe('')
    return JSON.parse(child.stdout) as typeof expected & { zodFilesRequired: number }
  }

  it("dist/index.js: checks with zod, composes with the app's zod, and loads zod once, as an ES module", () => {
    const { zodFilesRequired, ...outcome } = run("await import('./dist/index.js')")
    expect(outcome).toEqual(expected)
    expect(zodFilesRequired).toBe(0)
  })

  it('dist/index.cjs: the same checks and composition', () => {
    const { zodFilesRequired: _, ...outcome } = run(
      "(await import('node:module')).createRequire(import.meta.url)('./dist/index.cjs')",
    )
    expect(outcome).toEqual(expected)
  })

  it('imports zod the ordinary way, and reads none of its internals', () => {
    for (const file of ['index.js', 'index.cjs', 'portable/index.js']) {
      const code = readFileSync(join(DIST, file), 'utf8')
      expect(code).toMatch(/from 'zod\/mini'|require\(['"]zod\/mini['"]\)/)
      expect(code).not.toMatch(/\._zod\b|\.def\.type\b|createRequire\(import\.meta\.url\)\(['"]zod/)
    }
  })
})

describe('the built error classes', () => {
  // An app that loads both builds (a CommonJS dependency requires notifykit, the app imports it): the
  // dual-package hazard. Errors of either copy must pass the other's `instanceof`.
  it('instanceof holds between dist/index.cjs and dist/index.js loaded in one process', () => {
    const check = `
      const cjs = (await import('node:module')).createRequire(import.meta.url)('./dist/index.cjs')
      const esm = await import('./dist/index.js')
      const answering = (status, body) => async () => new Response(JSON.stringify(body), { status })
      const failure = async (copy, status, body) => {
        const client = new copy.NotificationClient({
          apiKey: 'k', baseUrl: 'https://api.test', maxRetries: 0, fetch: answering(status, body),
        })
        return client.events.trigger({ name: 'welcom', to: 'u' }).then(() => undefined, (error) => error)
      }
      const fromCjs = await failure(cjs, 429, { message: 'slow down' })
      const fromEsm = await failure(esm, 422, { message: 'workflow_not_found' })
      console.log(JSON.stringify({
        distinctClasses: cjs.RateLimitError !== esm.RateLimitError,
        cjsInEsm: [esm.RateLimitError, esm.ApiError, esm.NotifyKitError, esm.NotFoundError].map((C) => fromCjs instanceof C),
        esmInCjs: [cjs.UnprocessableEntityError, cjs.ApiError, cjs.NotifyKitError, cjs.RateLimitError].map((C) => fromEsm instanceof C),
        codes: [fromCjs.code, fromEsm.code],
        workflowName: fromEsm.workflowName,
      }))`
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', check], {
      cwd: REPO,
      encoding: 'utf8',
    })
    expect(run.stderr).toBe('')
    expect(JSON.parse(run.stdout)).toEqual({
      distinctClasses: true,
      cjsInEsm: [true, true, true, false],
      esmInCjs: [true, true, true, false],
      codes: ['NOTIFYKIT_RATE_LIMIT', 'NOTIFYKIT_UNPROCESSABLE_ENTITY'],
      workflowName: 'welcom',
    })
  })

  it("a trigger not sent, and a bulk event not sent, pass the other copy's TriggerNotSentError", () => {
    const check = `
      const cjs = (await import('node:module')).createRequire(import.meta.url)('./dist/index.cjs')
      const esm = await import('./dist/index.js')
      const answering = (data) => async () => new Response(JSON.stringify({ data }), { status: 201 })
      const client = (copy, data) =>
        new copy.NotificationClient({ apiKey: 'k', baseUrl: 'https://api.test', fetch: answering(data) })
      const single = await client(cjs, { acknowledged: true, status: 'no_tenant_found' })
        .events.trigger({ name: 'w', to: 'u' }).catch((error) => error)
      const bulk = await client(esm, [{ acknowledged: true, status: 'error', error: ['workflow_not_found'] }])
        .events.triggerBulk([{ name: 'w', to: 'u' }]).catch((error) => error)
      console.log(JSON.stringify({
        single: [single instanceof esm.TriggerNotSentError, single.status],
        bulk: [bulk instanceof cjs.BulkTriggerError, bulk.failures[0].error instanceof cjs.TriggerNotSentError],
      }))`
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', check], {
      cwd: REPO,
      encoding: 'utf8',
    })
    expect(run.stderr).toBe('')
    expect(JSON.parse(run.stdout)).toEqual({ single: [true, 'no_tenant_found'], bulk: [true, true] })
  })

  it('the types hold no internal helper of the request core', () => {
    for (const file of ['index.d.ts', 'index.d.cts']) {
      const types = readFileSync(join(DIST, file), 'utf8')
      for (const internal of ['withContext', 'withCallContext', 'namingWorkflow', 'CallContext']) {
        expect(types).not.toContain(internal)
      }
      expect(types).toMatch(
        /declare class RateLimitError extends ApiError \{[^}]*code: 'NOTIFYKIT_RATE_LIMIT'/,
      )
    }
  })
})
