import { readdirSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'

// Examples of the README and of the guides (docs/*.md) that are whole test files run in this suite as
// those files; this keeps each document's copy the same, character for character, as the one that runs.
// A document marks such a block with `<!-- runs in our suite as test/readme/<file> -->`, a blank line,
// then the block.
const documents = [
  'README.md',
  ...readdirSync(new URL('../../docs/', import.meta.url), { withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.md'))
    .map((entry) => `docs/${entry.name}`),
].map((path) => ({ path, text: readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8') }))

/** The `ts` block each document marks as running in our suite, by the file it names. */
function markedBlocks(text: string): Map<string, string | undefined> {
  const blocks = new Map<string, string | undefined>()
  for (const match of text.matchAll(/^<!-- runs in our suite as test\/readme\/(\S+) -->\n/gm)) {
    const after = text.slice((match.index ?? 0) + match[0].length)
    blocks.set(match[1] ?? '', /^\n```ts\n([\s\S]*?)^```$/m.exec(after)?.[1])
  }
  return blocks
}

describe('documented examples that run as tests', () => {
  it.each([
    ['fake-app.test.ts', 'README.md'],
    ['msw-app.test.ts', 'docs/testing.md'],
    ['outage-tests.test.ts', 'docs/testing.md'],
  ])('test/readme/%s is shown in %s exactly as it runs', (file, path) => {
    const source = readFileSync(new URL(file, import.meta.url), 'utf8')
    const document = documents.find((candidate) => candidate.path === path)
    expect(document, path).toBeDefined()
    expect(markedBlocks(document?.text ?? '').get(file)).toBe(source)
  })

  it('every block marked as running in our suite is a file of test/readme', () => {
    const files = readdirSync(new URL('./', import.meta.url))
    for (const { path, text } of documents) {
      for (const [file, block] of markedBlocks(text)) {
        expect(files, `${path} names test/readme/${file}`).toContain(file)
        expect(block, `${path}: the ts block right after the mark of ${file}`).toBeDefined()
      }
    }
  })
})
