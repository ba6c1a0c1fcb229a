import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import {
  BroadcastEventRequestSchema,
  MarkAllMessagesRequestSchema,
  SubscriberSchema,
  TriggerEventRequestSchema,
  TriggerOverridesSchema,
  UpdateSubscriberPreferencesRequestSchema,
} from '../../src/index.js'

// The field tables of docs/schemas.md name exactly the fields of the schemas the client checks
// with: a field added to a schema and not to its table (or the other way round) fails here.

const guide = readFileSync(new URL('../../docs/schemas.md', import.meta.url), 'utf8')

/** The field names in the first column of the first table after `heading`. */
function tableFields(heading: string): string[] {
  const start = guide.indexOf(heading)
  if (start === -1) throw new Error(`docs/schemas.md has no "${heading}"`)
  const lines = guide.slice(start).split('\n')
  const first = lines.findIndex((line) => line.startsWith('|'))
  const rows: string[] = []
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith('|')) break
    rows.push(line)
  }
  return rows.flatMap((row) => {
    const cell = row.split('|')[1] ?? ''
    // "any other key (`fcm`, …)" names examples, not fields.
    if (cell.trim().startsWith('any other')) return []
    return [...cell.matchAll(/`([^`]+)`/g)].map((match) => match[1] as string)
  })
}

const sorted = (keys: Iterable<string>) => [...keys].sort()

describe('docs/schemas.md field tables', () => {
  it.each([
    ['### Trigger', TriggerEventRequestSchema.shape],
    ['### Broadcast', BroadcastEventRequestSchema.shape],
    ["### Update a subscriber's preferences", UpdateSubscriberPreferencesRequestSchema.shape],
    ['### Mark all messages', MarkAllMessagesRequestSchema.shape],
    ['A subscriber object:', SubscriberSchema.shape],
    ['### Overrides', TriggerOverridesSchema.shape],
  ])('%s lists the fields of its schema', (heading, shape) => {
    expect(sorted(tableFields(heading))).toEqual(sorted(Object.keys(shape)))
  })
})
