// The command line of `notifykit fake`, read into options: a pure function, so that every refusal
// is a message and an exit code, never a stack trace.
import { parseArgs } from 'node:util'
import { didYouMean } from '../../internal/text/did-you-mean.js'

/** The port a developer can remember; `--port 0` asks the system for a free one. */
export const DEFAULT_PORT = 4010
export const DEFAULT_HOST = '127.0.0.1'

export interface FakeCommandOptions {
  port: number
  host: string
  /** The only key accepted; without it, any `Authorization: ApiKey <key>` is. */
  apiKey: string | undefined
  /** A JSON file of seeds, the shape `createFakeService` takes. */
  seedsFile: string | undefined
  /** One JSON object per line instead of text. */
  json: boolean
}

export type Command =
  | { kind: 'fake'; options: FakeCommandOptions }
  | { kind: 'help'; text: string }
  | { kind: 'version' }
  | { kind: 'error'; message: string }

const FAKE_FLAGS = ['port', 'host', 'api-key', 'seeds', 'json', 'help'] as const

export const USAGE = `Usage: notifykit fake [options]

Serves notifykit's fake of the notification service (Novu's API) on a local port, for apps in any
language: point their base URL at the address it prints.

Options:
  --port <n>       port to listen on (default ${DEFAULT_PORT}; 0 picks a free one)
  --host <host>    interface to listen on (default ${DEFAULT_HOST}; 0.0.0.0 for a container)
  --api-key <key>  accept only this API key (default: any; NOTIFYKIT_FAKE_API_KEY also sets it)
  --seeds <file>   JSON file of workflows, subscribers, topics and tenants, as createFakeService takes
  --json           print one JSON object per line instead of text
  --help           this text

While it runs, every request and every message the fake "sends" is printed, one line each.
  POST /__notifykit/reset   forgets what requests did and keeps the seeds (so does SIGHUP)
  Ctrl-C (SIGINT), SIGTERM  stop`

/** Reads `argv` (without node and the script). `env` supplies NOTIFYKIT_FAKE_API_KEY. */
export function parseCommand(argv: readonly string[], env: Record<string, string | undefined> = {}): Command {
  const [name, ...rest] = argv
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    return { kind: 'help', text: USAGE }
  }
  if (name === '--version' || name === '-v') return { kind: 'version' }
  if (name !== 'fake') {
    return { kind: 'error', message: `unknown command ${JSON.stringify(name)}${didYouMean(name, ['fake'])}` }
  }
  const unknown = rest.find((arg) => arg.startsWith('--') && !isKnownFlag(arg))
  if (unknown !== undefined) {
    const flag = unknown.slice(2).split('=')[0] ?? ''
    const hint = didYouMean(flag, FAKE_FLAGS)
    return { kind: 'error', message: `unknown option --${flag}${hint.replace(/`(.+)`/, '`--$1`')}` }
  }
  let values: {
    port?: string
    host?: string
    'api-key'?: string
    seeds?: string
    json?: boolean
    help?: boolean
  }
  try {
    ;({ values } = parseArgs({
      args: [...rest],
      options: {
        port: { type: 'string', short: 'p' },
        host: { type: 'string' },
        'api-key': { type: 'string' },
        seeds: { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }))
  } catch (error) {
    return { kind: 'error', message: (error as Error).message }
  }
  if (values.help) return { kind: 'help', text: USAGE }
  const port = values.port === undefined ? DEFAULT_PORT : Number(values.port)
  if (!/^\d+$/.test(values.port ?? '0') || !Number.isInteger(port) || port > 65_535) {
    return { kind: 'error', message: `--port must be a whole number from 0 to 65535, not ${values.port}` }
  }
  const apiKey = values['api-key'] ?? env.NOTIFYKIT_FAKE_API_KEY
  if (apiKey !== undefined && apiKey.trim() === '') return { kind: 'error', message: '--api-key is empty' }
  return {
    kind: 'fake',
    options: {
      port,
      host: values.host ?? DEFAULT_HOST,
      apiKey,
      seedsFile: values.seeds,
      json: values.json ?? false,
    },
  }
}

function isKnownFlag(arg: string): boolean {
  const flag = arg.slice(2).split('=')[0]
  return (FAKE_FLAGS as readonly string[]).includes(flag ?? '')
}
