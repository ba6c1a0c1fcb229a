import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { NotificationClient, type NotificationClientOptions } from '../../../src/index.js'
import { API_KEY, seededFake } from '../../helpers/fake.js'

// Clients that share one API key, and so one bucket on the server, without talking to each other:
// serverless instances sending at once. On a fake clock, against the fake's token bucket, with the
// triggers answered after a few milliseconds: every client starts at the same instant, the worst case
// for a fleet.

const START = Date.parse('2026-03-01T12:00:00.000Z')
const PER_SECOND = 100
const BURST = 110

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
  vi.setSystemTime(START)
})

afterEach(() => {
  vi.useRealTimers()
})

/** A fake with a bucket, and a fetch to it that counts the 429s. */
function bucketServer(bucket = { perSecond: PER_SECOND, burst: BURST }) {
  const fake = seededFake({ rateLimit: bucket })
  const statuses: number[] = []
  const fetch: NotificationClientOptions['fetch'] = async (url, init) => {
    // A few milliseconds each way, as on a network: answers at once would keep every client in step.
    await new Promise((resolve) => setTimeout(resolve, 5))
    const response = await fake.fetch(url, init)
    statuses.push(response.status)
    return response
  }
  const newClient = () =>
    new NotificationClient({ apiKey: API_KEY, baseUrl: 'https://fake.test', fetch, logLevel: 'off' })
  return { fake, statuses, newClient }
}

/** `count` triggers from `client`, four at a time. */
async function send(client: NotificationClient, count: number, tag: string): Promise<void> {
  let next = 0
  const worker = async () => {
    while (next < count) await client.events.trigger({ name: 'welcome', to: `${tag}-${next++}` })
  }
  await Promise.all(Array.from({ length: 4 }, worker))
}

/** Runs the fake clock until `work` ends; the milliseconds it took. */
async function timed(work: Promise<unknown>): Promise<number> {
  const started = Date.now()
  let done = false
  void work.finally(() => {
    done = true
  })
  while (!done) await vi.advanceTimersByTimeAsync(50)
  await work
  return Date.now() - started
}

/** What the bucket's refill allows for `units` after its burst, in milliseconds. */
const idealMs = (units: number, burst = BURST) => ((units - burst) / PER_SECOND) * 1000

describe('a fleet of clients on one key', () => {
  it('eight clients starting together settle near their share: few 429s, the bucket kept busy', async () => {
    const { fake, statuses, newClient } = bucketServer()
    const elapsed = await timed(
      Promise.all(Array.from({ length: 8 }, (_, c) => send(newClient(), 150, `c${c}`))),
    )
    const tooMany = statuses.filter((status) => status === 429).length
    expect(fake.notifications).toHaveLength(1_200)
    expect(tooMany / statuses.length).toBeLessThanOrEqual(0.02)
    expect(elapsed / idealMs(1_200)).toBeLessThanOrEqual(1.15)
  }, 30_000)

  it('one client alone draws the whole bucket (it keeps no level for others it has not seen), without a 429', async () => {
    const { statuses, newClient } = bucketServer()
    const elapsed = await timed(send(newClient(), 500, 'alone'))
    expect(statuses.filter((status) => status === 429)).toHaveLength(0)
    expect(elapsed / idealMs(500)).toBeLessThanOrEqual(1.05)
  }, 30_000)

  it('a client that joins a running fleet reaches its share within a few seconds, and takes no more', async () => {
    const { fake, newClient } = bucketServer()
    // Who got each answer, and when.
    const served: { client: number; at: number }[] = []
    const clients = Array.from({ length: 4 }, (_, c) => {
      const client = newClient()
      client.events.trigger = new Proxy(client.events.trigger, {
        apply: (trigger, events, args: Parameters<typeof client.events.trigger>) =>
          trigger.apply(events, args).then((result) => {
            served.push({ client: c, at: Date.now() - START })
            return result
          }),
      })
      return client
    })
    const joinAt = 1_000
    const work = Promise.all(
      clients.map(async (client, c) => {
        if (c === 3) await new Promise((resolve) => setTimeout(resolve, joinAt))
        await send(client, 600, `c${c}`)
      }),
    )
    await timed(work)
    expect(fake.notifications).toHaveLength(2_400)
    // From 2 s after it joined until the first client is done, each sends about a quarter of the refill.
    const from = joinAt + 2_000
    const to = Math.min(
      ...[0, 1, 2, 3].map((c) => Math.max(...served.filter((s) => s.client === c).map((s) => s.at))),
    )
    expect(to - from).toBeGreaterThan(3_000)
    const counts = [0, 1, 2, 3].map(
      (c) => served.filter((s) => s.client === c && s.at > from && s.at <= to).length,
    )
    const mean = counts.reduce((sum, count) => sum + count, 0) / counts.length
    for (const count of counts) expect(Math.abs(count / mean - 1)).toBeLessThanOrEqual(0.15)
  }, 30_000)

  it('clients that send in bursts with idle spells between meet few 429s: each joins again after a spell', async () => {
    const { fake, statuses, newClient } = bucketServer({ perSecond: 2_000, burst: 2_200 })
    // Each client: 4 bursts of 300 events (3 bulk requests), with 300 to 1,200 ms of nothing between.
    const bursts = async (client: NotificationClient, c: number) => {
      for (let burst = 0; burst < 4; burst++) {
        const events = Array.from({ length: 300 }, (_, i) => ({ name: 'welcome', to: `c${c}-${burst}-${i}` }))
        await client.events.triggerBulk(events)
        await new Promise((resolve) => setTimeout(resolve, 300 + ((c * 7 + burst * 13) % 10) * 100))
      }
    }
    await timed(Promise.all(Array.from({ length: 8 }, (_, c) => bursts(newClient(), c))))
    expect(fake.notifications).toHaveLength(9_600)
    const tooMany = statuses.filter((status) => status === 429).length
    expect(tooMany / statuses.length).toBeLessThanOrEqual(0.02)
  }, 30_000)

  it('a client left alone when the others stop grows back to the whole bucket', async () => {
    const { statuses, newClient } = bucketServer()
    const survivor = newClient()
    await timed(
      Promise.all([
        send(survivor, 75, 'survivor'),
        ...Array.from({ length: 7 }, (_, c) => send(newClient(), 150, `c${c}`)),
      ]),
    )
    const before = statuses.length
    // Alone now, from a bucket the fleet left low: 600 more at the refill rate, near enough.
    const elapsed = await timed(send(survivor, 300, 'survivor-alone'))
    expect(statuses.slice(before).filter((status) => status === 429)).toHaveLength(0)
    expect(elapsed / idealMs(300, 0)).toBeLessThanOrEqual(1.15)
  }, 30_000)
})
