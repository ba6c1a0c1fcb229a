import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

const FIXTURE = fileURLToPath(new URL('./fixtures/fetch-option.ts', import.meta.url))

/** The fixture's own errors, compiled as a user's strict project without the DOM lib would. */
function errorsIn(file: string, extra: ts.CompilerOptions): string[] {
  const program = ts.createProgram({
    rootNames: [file],
    options: {
      strict: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      lib: ['lib.es2022.d.ts'],
      types: ['node'],
      skipLibCheck: true,
      noEmit: true,
      ...extra,
    },
  })
  return ts
    .getPreEmitDiagnostics(program)
    .filter((diagnostic) => diagnostic.file?.fileName === file)
    .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, ' '))
}

describe('the fetch option accepts every runtime fetch as it is', () => {
  it.each([
    ['strict', {}],
    ['exactOptionalPropertyTypes', { exactOptionalPropertyTypes: true, noUncheckedIndexedAccess: true }],
  ])(
    'under %s: Node, undici, Bun, Workers and the fake, no DOM lib',
    (_name, extra) => {
      expect(errorsIn(FIXTURE, extra)).toEqual([])
    },
    60_000,
  )
})
