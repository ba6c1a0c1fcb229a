import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'

// The promises package.json makes to npm users, checked without a build. The built files themselves
// are checked from the packed tarball by `npm run check:package` and `npm run smoke`.

interface Manifest {
  type: string
  sideEffects: boolean
  main: string
  module?: string
  types: string
  typesVersions: Record<string, Record<string, string[]>>
  exports: Record<string, unknown>
  files: string[]
  engines: { node: string }
  dependencies: Record<string, string>
  devDependencies: Record<string, string>
  peerDependencies: Record<string, string>
  peerDependenciesMeta: Record<string, { optional?: boolean }>
}

const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as Manifest

describe('package.json', () => {
  it.each([
    ['.', 'index'],
    ['./testing', 'testing'],
    ['./testing/msw', 'testing/msw'],
    ['./otel', 'otel'],
  ])(
    '%s: the portable build for fetch runtimes, then import and require, each with its own types listed first',
    (entry, file) => {
      const conditions = manifest.exports[entry] as Record<string, Record<string, string>>
      const portable = ['workerd', 'worker', 'edge-light', 'bun', 'deno', 'browser']
      expect(Object.keys(conditions)).toEqual([...portable, 'import', 'require'])
      for (const condition of portable) {
        expect(conditions[condition]).toEqual({
          types: `./dist/${file}.d.ts`,
          default: `./dist/portable/${file}.js`,
        })
      }
      expect(conditions.import).toEqual({ types: `./dist/${file}.d.ts`, default: `./dist/${file}.js` })
      expect(conditions.require).toEqual({ types: `./dist/${file}.d.cts`, default: `./dist/${file}.cjs` })
      expect(Object.keys(conditions.import ?? {})[0]).toBe('types')
      expect(Object.keys(conditions.require ?? {})[0]).toBe('types')
    },
  )

  it('has fallbacks for tools that ignore exports, and declares no side effects', () => {
    expect(manifest.type).toBe('module')
    expect(manifest.main).toBe('./dist/index.cjs')
    expect(manifest.module).toBeUndefined()
    expect(manifest.types).toBe('./dist/index.d.cts')
    expect(manifest.sideEffects).toBe(false)
  })

  it('lists the subpath entries in typesVersions, for TypeScript without `exports` support', () => {
    expect(manifest.typesVersions).toEqual({
      '*': {
        testing: ['./dist/testing.d.cts'],
        'testing/msw': ['./dist/testing/msw.d.cts'],
        otel: ['./dist/otel.d.cts'],
      },
    })
    expect(Object.keys(manifest.exports)).toEqual([
      '.',
      './testing',
      './testing/msw',
      './otel',
      './package.json',
    ])
  })

  it('publishes only the build and the documents users read', () => {
    expect(manifest.files.sort()).toEqual([
      'CHANGELOG.md',
      'LICENSE',
      'README.md',
      'SECURITY.md',
      'dist',
      'docs/*.md',
    ])
  })

  it('depends at run time on undici and zod only; msw is an optional peer of the test kit', () => {
    expect(Object.keys(manifest.dependencies).sort()).toEqual(['undici', 'zod'])
    expect(Object.keys(manifest.peerDependencies).sort()).toEqual(['@opentelemetry/api', 'msw'])
    expect(manifest.peerDependenciesMeta.msw?.optional).toBe(true)
    expect(manifest.devDependencies.msw).toBeDefined()
  })

  it('@opentelemetry/api is an optional peer of notifykit/otel, never an OpenTelemetry SDK package', () => {
    // 1.3.0 is the first API with metrics; the rest of what otelHooks uses is older.
    expect(manifest.peerDependencies['@opentelemetry/api']).toBe('^1.3.0')
    expect(manifest.peerDependenciesMeta['@opentelemetry/api']?.optional).toBe(true)
    const runtime = [...Object.keys(manifest.dependencies), ...Object.keys(manifest.peerDependencies)]
    expect(runtime.filter((name) => name.startsWith('@opentelemetry/'))).toEqual(['@opentelemetry/api'])
  })

  it('supports the Node versions the smoke test runs: 20.18.1 (undici 7 needs it) and newer', () => {
    expect(manifest.engines.node).toBe('>=20.18.1')
  })
})
