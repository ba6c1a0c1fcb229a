import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { GENERATED_FILE, generateChecksSource } from '../../scripts/generate-checks.js'
import { isDeferred } from '../../src/internal/deferred.js'
import { generatedCheckOf } from '../../src/internal/generated-checks.js'
import * as schemas from '../../src/schemas/index.js'

// The checks a call runs before anything is sent are generated from the schemas at build time; a
// schema changed without `npm run generate` would be checked by its old rules.

describe('the generated checks', () => {
  it('are what the schemas give today (run `npm run generate` after changing a schema)', () => {
    expect(readFileSync(GENERATED_FILE, 'utf8')).toBe(generateChecksSource())
  })

  it('cover every exported schema', () => {
    const exported = Object.entries(schemas).filter(([, value]) => isDeferred(value))
    expect(exported.length).toBeGreaterThan(40)
    expect(exported.filter(([, schema]) => generatedCheckOf(schema as object) === undefined)).toEqual([])
  })
})
