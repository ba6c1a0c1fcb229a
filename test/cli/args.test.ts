import { describe, expect, it } from 'vitest'
import { DEFAULT_HOST, DEFAULT_PORT, parseCommand } from '../../src/testing/cli/args.js'
import { checkSeeds } from '../../src/testing/cli/seeds-file.js'

describe('notifykit command line', () => {
  it('reads the fake options, with their defaults', () => {
    expect(parseCommand(['fake'])).toEqual({
      kind: 'fake',
      options: {
        port: DEFAULT_PORT,
        host: DEFAULT_HOST,
        apiKey: undefined,
        seedsFile: undefined,
        json: false,
      },
    })
    expect(DEFAULT_HOST).toBe('127.0.0.1')
    expect(
      parseCommand(['fake', '--port', '0', '--host', '::1', '--api-key', 'k', '--seeds', 's.json', '--json']),
    ).toEqual({
      kind: 'fake',
      options: { port: 0, host: '::1', apiKey: 'k', seedsFile: 's.json', json: true },
    })
    expect(parseCommand(['fake', '--port=5000'])).toMatchObject({ options: { port: 5000 } })
  })

  it('takes the key from NOTIFYKIT_FAKE_API_KEY, the option first', () => {
    expect(parseCommand(['fake'], { NOTIFYKIT_FAKE_API_KEY: 'env' })).toMatchObject({
      options: { apiKey: 'env' },
    })
    expect(parseCommand(['fake', '--api-key', 'flag'], { NOTIFYKIT_FAKE_API_KEY: 'env' })).toMatchObject({
      options: { apiKey: 'flag' },
    })
    expect(parseCommand(['fake', '--api-key', ' '])).toEqual({ kind: 'error', message: '--api-key is empty' })
  })

  it('refuses what it does not know, naming what was probably meant', () => {
    expect(parseCommand(['fkae'])).toEqual({
      kind: 'error',
      message: 'unknown command "fkae"; did you mean `fake`?',
    })
    expect(parseCommand(['fake', '--seed', 'x'])).toEqual({
      kind: 'error',
      message: 'unknown option --seed; did you mean `--seeds`?',
    })
    expect(parseCommand(['fake', 'extra'])).toMatchObject({ kind: 'error' })
    for (const port of ['-1', '65536', '1.5', 'abc', '']) {
      expect(parseCommand(['fake', '--port', port])).toMatchObject({ kind: 'error' })
    }
    expect(parseCommand(['fake', '--port', '65535'])).toMatchObject({ options: { port: 65_535 } })
  })

  it('prints its help without a command, and with --help', () => {
    expect(parseCommand([])).toMatchObject({ kind: 'help' })
    expect(parseCommand(['fake', '--help'])).toMatchObject({ kind: 'help' })
    expect(parseCommand(['--version'])).toEqual({ kind: 'version' })
  })
})

describe('the seeds file', () => {
  it('takes the options createFakeService takes, as JSON', () => {
    const seeds = {
      apiKey: 'k',
      workflows: [{ identifier: 'welcome', steps: [{ type: 'email' }] }],
      subscribers: [{ subscriberId: 'u1' }],
      topics: [{ topicKey: 'team', subscribers: ['u1'] }],
      tenants: [{ identifier: 'acme' }],
      rateLimit: { perSecond: 10 },
      missingNotification: 'null',
    }
    expect(checkSeeds(seeds, 'seeds.json')).toEqual(seeds)
  })

  it('names what is wrong', () => {
    expect(() => checkSeeds([], 's.json')).toThrow('s.json: the seeds must be a JSON object')
    expect(() => checkSeeds({ subscriber: [] }, 's.json')).toThrow(
      's.json: unknown key "subscriber"; did you mean `subscribers`?',
    )
    expect(() => checkSeeds({ now: 1 }, 's.json')).toThrow('unknown key "now"')
    expect(() => checkSeeds({ topics: {} }, 's.json')).toThrow('s.json: topics must be an array')
    expect(() => checkSeeds({ workflows: [{ name: 'x' }] }, 's.json')).toThrow(
      's.json: workflows[0] needs a non-empty string identifier',
    )
    expect(() => checkSeeds({ subscribers: [{ subscriberId: '' }] }, 's.json')).toThrow('subscribers[0]')
    expect(() => checkSeeds({ apiKey: 1 }, 's.json')).toThrow('apiKey must be a string')
  })
})
