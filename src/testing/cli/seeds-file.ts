// The seeds file of `notifykit fake --seeds`: the options `createFakeService` takes, as JSON (so
// without `now`, a function). Checked enough that a typo or a wrong shape is a message naming it,
// not a fake that silently lacks a workflow.
import { readFile } from 'node:fs/promises'
import { didYouMean } from '../../internal/text/did-you-mean.js'
import type { FakeServiceOptions } from '../fake/types.js'

export type SeedOptions = Omit<FakeServiceOptions, 'now'>

/** The lists of seeds, and the field that names each item. */
const LISTS = {
  workflows: 'identifier',
  subscribers: 'subscriberId',
  topics: 'topicKey',
  tenants: 'identifier',
} as const

const OTHER_KEYS = ['apiKey', 'rateLimit', 'faults', 'missingNotification'] as const
const KEYS = [...Object.keys(LISTS), ...OTHER_KEYS]

export class SeedsFileError extends Error {
  override readonly name = 'SeedsFileError'
}

export async function readSeedsFile(path: string): Promise<SeedOptions> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    throw new SeedsFileError(
      `cannot read the seeds file ${path}: ${(error as NodeJS.ErrnoException).code ?? error}`,
    )
  }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    throw new SeedsFileError(`the seeds file ${path} is not JSON: ${(error as Error).message}`)
  }
  return checkSeeds(value, path)
}

export function checkSeeds(value: unknown, path: string): SeedOptions {
  if (!isRecord(value)) throw new SeedsFileError(`${path}: the seeds must be a JSON object`)
  for (const key of Object.keys(value)) {
    if (!KEYS.includes(key)) {
      throw new SeedsFileError(`${path}: unknown key ${JSON.stringify(key)}${didYouMean(key, KEYS)}`)
    }
  }
  for (const [list, idField] of Object.entries(LISTS)) {
    const items = value[list]
    if (items === undefined) continue
    if (!Array.isArray(items)) throw new SeedsFileError(`${path}: ${list} must be an array`)
    items.forEach((item: unknown, index) => {
      if (!isRecord(item) || typeof item[idField] !== 'string' || item[idField] === '') {
        throw new SeedsFileError(`${path}: ${list}[${index}] needs a non-empty string ${idField}`)
      }
    })
  }
  if (value.apiKey !== undefined && typeof value.apiKey !== 'string') {
    throw new SeedsFileError(`${path}: apiKey must be a string`)
  }
  return value as SeedOptions
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
