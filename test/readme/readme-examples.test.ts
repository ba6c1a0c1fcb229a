import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'

// README examples that are whole test files run in this suite as those files; this keeps the README's
// copy the same, character for character, as the one that runs.
const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')

describe('README examples that run as tests', () => {
  it.each(['fake-app.test.ts', 'msw-app.test.ts'])(
    'README shows test/readme/%s exactly as it runs',
    (file) => {
      const source = readFileSync(new URL(file, import.meta.url), 'utf8')
      expect(readme).toContain(
        `<!-- runs in our suite as test/readme/${file} -->\n\n\`\`\`ts\n${source}\`\`\``,
      )
    },
  )
})
