// What the compiler tells a user who gets a typed trigger wrong. `@ts-expect-error` (workflows.test-d.ts)
// proves that a mistake is refused; these tests read the message itself, compiling user code with the
// TypeScript API against the sources, as an editor would show it.
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { beforeAll, describe, expect, it } from 'vitest'

const root = fileURLToPath(new URL('../../../', import.meta.url))
// A file that does not exist on disk, beside this one so that its imports resolve like a test's.
const userFile = fileURLToPath(new URL('./user-code.ts', import.meta.url))

const prelude = `
import * as v from 'valibot'
import { z } from 'zod'
import { NotificationClient, type TriggerEventOf } from '../../../src/index.js'
type Workflows = {
  welcome: { firstName: string }
  'order-shipped': { orderId: string; eta?: string }
  'weekly-digest': { week: string }
}
const client = new NotificationClient<Workflows>({ apiKey: 'k', baseUrl: 'https://api.test' })
const checked = new NotificationClient({
  apiKey: 'k',
  baseUrl: 'https://api.test',
  workflows: {
    welcome: z.object({ firstName: z.string() }),
    'weekly-digest': v.object({ week: v.string() }),
  },
})
declare const users: { id: string }[]
`

const cases = {
  triggerTypo: `client.events.trigger({ name: 'welcome', to: 'u1', payload: { first_name: 'Ada' } })`,
  checkedTypo: `checked.events.trigger({ name: 'welcome', to: 'u1', payload: { firstname: 'Ada' } })`,
  wrongFieldType: `client.events.trigger({ name: 'order-shipped', to: 'u1', payload: { orderId: 42 } })`,
  missingPayload: `client.events.trigger({ name: 'welcome', to: 'u1' })`,
  unknownName: `client.events.trigger({ name: 'welcom', to: 'u1', payload: { firstName: 'Ada' } })`,
  bulkTypo: `client.events.triggerBulk(users.map((user) => ({ name: 'weekly-digest', to: user.id, payload: { wek: 'w' } })))`,
  bulkInlineWrongType: `client.events.triggerBulk([
  { name: 'welcome', to: 'u1', payload: { firstName: 'Ada' } },
  { name: 'order-shipped', to: 'u2', payload: { orderId: 42 } },
])`,
  widenedName: `const events = users.map((user) => ({ name: 'weekly-digest', to: user.id, payload: { week: 'w' } }))
client.events.triggerBulk(events)`,
  annotatedTypo: `const events: TriggerEventOf<typeof client, 'weekly-digest'>[] = users.map((user) => ({ name: 'weekly-digest', to: user.id, payload: { wek: 'w' } }))`,
  broadcastTypo: `client.events.broadcast({ name: 'welcome', payload: { firstname: 'all' } })`,
}
type Case = keyof typeof cases

/**
 * Every case compiled in one program, each in its own block; the messages of each, flattened, and
 * the line of each in its case (0 for the case's first line).
 */
function compileCases(): { messages: Record<Case, string[]>; lines: Record<Case, number[]> } {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    `${root}tsconfig.json`,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'))
      },
    },
  )
  if (!parsed) throw new Error('tsconfig.json could not be read')
  const names = Object.keys(cases) as Case[]
  let source = prelude
  const startLines: number[] = []
  for (const name of names) {
    startLines.push(source.split('\n').length - 1)
    source += `{\n${cases[name]}\n}\n`
  }
  const host = ts.createCompilerHost(parsed.options)
  const getSourceFile = host.getSourceFile.bind(host)
  host.getSourceFile = (fileName, language, ...rest) =>
    fileName === userFile
      ? ts.createSourceFile(fileName, source, language)
      : getSourceFile(fileName, language, ...rest)
  const fileExists = host.fileExists.bind(host)
  host.fileExists = (fileName) => fileName === userFile || fileExists(fileName)
  const program = ts.createProgram([userFile], { ...parsed.options, noEmit: true }, host)
  const file = program.getSourceFile(userFile)
  if (!file) throw new Error('the user file was not compiled')
  const messages = Object.fromEntries(names.map((name) => [name, [] as string[]])) as Record<Case, string[]>
  const lines = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<Case, number[]>
  for (const diagnostic of ts.getPreEmitDiagnostics(program, file)) {
    const line = file.getLineAndCharacterOfPosition(diagnostic.start ?? 0).line
    const index = startLines.findLastIndex((start) => start <= line)
    const name = names[index]
    const text = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')
    if (name === undefined) throw new Error(`an error outside the cases: ${text}`)
    messages[name].push(text)
    lines[name].push(line - (startLines[index] ?? 0) - 1)
  }
  return { messages, lines }
}

describe('type errors of typed workflows name the workflow at fault', () => {
  let messages: Record<Case, string[]>
  let lines: Record<Case, number[]>
  beforeAll(() => {
    const compiled = compileCases()
    messages = compiled.messages
    lines = compiled.lines
  }, 120_000)

  const only = (name: Case) => {
    expect(messages[name]).toHaveLength(1)
    return messages[name][0] ?? ''
  }
  /** The names of the union in `Type '<source>' is not assignable to type '"a" | "b"'`, sorted: the compiler's order varies. */
  const namesOffered = (message: string, source: string) => {
    const union = message.match(
      new RegExp(`Type '${source}' is not assignable to type '((?:"[^"]+"(?: \\| )?)+)'`),
    )
    return union?.[1]?.split(' | ').sort()
  }
  const allNames = ['"order-shipped"', '"weekly-digest"', '"welcome"']

  it("a misspelt payload field: that workflow's payload type, not the union of all", () => {
    expect(only('triggerTypo')).toContain(
      "'first_name' does not exist in type '{ firstName: string; }'. Did you mean to write 'firstName'?",
    )
    expect(only('checkedTypo')).toContain("'firstname' does not exist in type '{ firstName: string; }'")
    expect(only('broadcastTypo')).toContain("'firstname' does not exist in type '{ firstName: string; }'")
    for (const name of ['triggerTypo', 'checkedTypo', 'broadcastTypo'] as const) {
      expect(only(name)).not.toMatch(/orderId|week/)
    }
  })

  it('a misspelt field in a bulk list, built in the call or annotated apart', () => {
    expect(only('bulkTypo')).toContain("Property 'week' is missing in type '{ wek: string; }'")
    expect(only('annotatedTypo')).toContain("Property 'week' is missing in type '{ wek: string; }'")
    expect(messages.bulkTypo.join() + messages.annotatedTypo.join()).not.toMatch(/firstName|orderId/)
  })

  it('a wrong event in a list written in the call: at that event, in one line', () => {
    // Line 0 is the call, line 2 the second event: the one a `@ts-expect-error` would sit above.
    expect(only('bulkInlineWrongType')).toBe("Type 'number' is not assignable to type 'string'.")
    expect(lines.bulkInlineWrongType).toEqual([2])
  })

  it('a field of the wrong type, and a missing payload, against that workflow alone', () => {
    expect(only('wrongFieldType')).toBe("Type 'number' is not assignable to type 'string'.")
    expect(only('missingPayload')).toContain(
      "Property 'payload' is missing in type '{ name: \"welcome\"; to: string; }' but required in type '{ payload: { firstName: string; }; }'",
    )
  })

  it('an unknown name lists the names and suggests the closest', () => {
    expect(namesOffered(only('unknownName'), '"welcom"')).toEqual(allNames)
    expect(only('unknownName')).toContain(`Did you mean '"welcome"'?`)
  })

  it('a name widened to string is reported against the list of names, not against one workflow', () => {
    const message = only('widenedName')
    expect(namesOffered(message, 'string')).toEqual(allNames)
    expect(message).not.toMatch(/\{ name: "[a-z-]+"; \}/)
  })
})
