// `notifykit fake`: the fake service on a port, for an app in any language. A thin layer over
// `createFakeService` and `serveFetchHandler`: it adds the printed activity and the reset route.
import { createFakeService } from '../fake/service.js'
import { serveFetchHandler } from '../serve.js'
import { type Activity, ActivityLog } from './activity.js'
import type { FakeCommandOptions } from './args.js'
import { readSeedsFile, type SeedOptions } from './seeds-file.js'

/**
 * Paths under this prefix are the command's own, never the API's (whose paths start with `/v1/`
 * or `/v2/`): `POST /__notifykit/reset`.
 */
export const CONTROL_PREFIX = '/__notifykit/'

/** How often a waiting delay or digest is looked at, so its message prints when it falls due. */
const WAITING_SCAN_MS = 500

export interface RunningFake {
  baseUrl: string
  /** Prints where it listens: the caller does once it is ready for signals. */
  announce(): void
  /** Forgets what the requests did (the seeds stay), and prints why. */
  reset(by: string): void
  /** Stops listening, prints why, and resolves once every connection is closed. */
  stop(by: string): Promise<void>
}

export async function startFake(
  options: FakeCommandOptions,
  write: (line: string) => void,
): Promise<RunningFake> {
  const seeds: SeedOptions = options.seedsFile === undefined ? {} : await readSeedsFile(options.seedsFile)
  const apiKey = options.apiKey ?? seeds.apiKey
  const fake = createFakeService({ ...seeds, ...(apiKey === undefined ? {} : { apiKey }) })
  const log = new ActivityLog(fake, write, options.json)

  let timer: NodeJS.Timeout | undefined
  const scan = () => {
    const waiting = log.scan()
    if (waiting && !timer) timer = setInterval(scan, WAITING_SCAN_MS)
    if (!waiting && timer) {
      clearInterval(timer)
      timer = undefined
    }
  }
  const reset = (by: string) => {
    fake.reset()
    log.forget()
    scan()
    log.print({ type: 'reset', by })
  }

  const server = await serveFetchHandler(
    async (request) => {
      const url = new URL(request.url)
      if (url.pathname.startsWith(CONTROL_PREFIX)) return control(request, url, apiKey, reset)
      const started = performance.now()
      const response = await fake.handle(request)
      const ms = Math.round(performance.now() - started)
      const status = response.type === 'error' ? 'dropped' : response.status
      log.print({ type: 'request', method: request.method, path: url.pathname + url.search, status, ms })
      scan()
      return response
    },
    { port: options.port, host: options.host },
  )

  const seeded: Extract<Activity, { type: 'listening' }>['seeded'] = {
    workflows: seeds.workflows?.length ?? 0,
    subscribers: seeds.subscribers?.length ?? 0,
    topics: seeds.topics?.length ?? 0,
    tenants: seeds.tenants?.length ?? 0,
  }
  let stopping: Promise<void> | undefined
  return {
    baseUrl: server.baseUrl,
    announce() {
      log.print({
        type: 'listening',
        baseUrl: server.baseUrl,
        apiKey: apiKey === undefined ? 'any' : 'one',
        seeded,
      })
    },
    reset,
    stop(by) {
      stopping ??= (async () => {
        if (timer) clearInterval(timer)
        await server.close()
        log.print({ type: 'stopped', by })
      })()
      return stopping
    },
  }
}

/** The command's own routes: the same API key as the fake's routes when one is set. */
function control(
  request: Request,
  url: URL,
  apiKey: string | undefined,
  reset: (by: string) => void,
): Response {
  if (apiKey !== undefined && request.headers.get('authorization')?.trim() !== `ApiKey ${apiKey}`) {
    return Response.json({ statusCode: 401, message: 'API Key not found' }, { status: 401 })
  }
  if (url.pathname === `${CONTROL_PREFIX}reset` && request.method === 'POST') {
    reset(`${request.method} ${url.pathname}`)
    return Response.json({ data: { reset: true } })
  }
  return Response.json(
    {
      statusCode: 404,
      message: `Cannot ${request.method} ${url.pathname}: the command answers POST ${CONTROL_PREFIX}reset`,
    },
    { status: 404 },
  )
}
