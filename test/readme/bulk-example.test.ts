import { readFileSync } from 'node:fs'
import { expect, it } from 'vitest'

// bulk-example.test-d.ts compiles the README's bulk examples with a typed client; this keeps the
// README's copy of them the same, character for character, as the one that compiles.
const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')
const fixture = readFileSync(new URL('./bulk-example.test-d.ts', import.meta.url), 'utf8')

it('README shows the bulk examples of test/readme/bulk-example.test-d.ts exactly as they compile', () => {
  const blocks = fixture.split('// ⟩ README\n').slice(1, -1)
  expect(blocks).toHaveLength(2)
  for (const block of blocks) expect(readme).toContain(`\`\`\`ts\n${block}\`\`\``)
})
