import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Novu } from '@novu/api'
import { NotificationClient } from 'notifykit'
import { afterEach, describe, expect, it } from 'vitest'
import { type RunningCli, runCli, startCli } from './helpers.js'

// `notifykit fake` as users start it: the built bin in its own process on a free port, driven over
// HTTP by notifykit and by the service's official SDK (@novu/api).

const API_KEY = 'sk-cli-canary-5f1e'
const dir = mkdtempSync(join(tmpdir(), 'notifykit-cli-'))
const seeds = join(dir, 'seeds.json')
writeFileSync(
  seeds,
  JSON.stringify({
    workflows: [
      { identifier: 'welcome', steps: [{ type: 'in_app' }, { type: 'email' }] },
      { identifier: 'reminder', steps: [{ type: 'delay', amount: 1, unit: 'seconds' }, { type: 'sms' }] },
    ],
    subscribers: [{ subscriberId: 'ada', email: 'ada@example.com', phone: '+15550100' }],
  }),
)

let running: RunningCli | undefined
afterEach(async () => {
  if (running && running.child.exitCode === null) {
    running.child.kill('SIGKILL')
    await running.exited
  }
  running = undefined
})

function clientOn(cli: RunningCli) {
  return new NotificationClient({ apiKey: API_KEY, baseUrl: cli.baseUrl, maxRetries: 0 })
}

describe('notifykit fake', () => {
  it('answers notifykit: each request and each message on a line, the key never printed', async () => {
    running = await startCli(['--seeds', seeds, '--api-key', API_KEY])
    expect(running.lines[0]).toMatch(
      /^listening on http:\/\/127\.0\.0\.1:\d+ \(one API key accepted, 2 workflows, 1 subscriber\)$/,
    )
    const client = clientOn(running)
    const sent = await client.events.trigger({ name: 'welcome', to: 'ada', payload: { plan: 'pro' } })
    await running.waitFor(/ POST \/v1\/events\/trigger 201 \d+ms$/)
    const email = await running.waitFor(/\d {3}sent email to ada <ada@example\.com>/)
    expect(email).toContain(`welcome/email-1 ${sent.transactionId} · payload {"plan":"pro"}`)
    await running.waitFor(/\d {3}sent in_app to ada · welcome\/in_app-0/)

    // A wrong key is refused, and its line says so; neither key is printed.
    const wrong = new NotificationClient({ apiKey: 'sk-wrong-key', baseUrl: running.baseUrl, maxRetries: 0 })
    await expect(wrong.events.trigger({ name: 'welcome', to: 'ada' })).rejects.toMatchObject({ status: 401 })
    await running.waitFor(/ POST \/v1\/events\/trigger 401 /)
    await Promise.all([client.close(), wrong.close()])
    const printed = running.lines.join('\n') + running.stderr()
    expect(printed).not.toContain(API_KEY)
    expect(printed).not.toContain('sk-wrong-key')
    expect(printed.toLowerCase()).not.toContain('authorization')
  })

  it('answers the official SDK, and prints a delayed message when it falls due', async () => {
    running = await startCli(['--seeds', seeds])
    const novu = new Novu({
      secretKey: API_KEY,
      serverURL: running.baseUrl,
      retryConfig: { strategy: 'none' },
    })
    const answer = await novu.trigger({ workflowId: 'reminder', to: 'ada', payload: { at: 'noon' } })
    expect(answer.result).toMatchObject({ acknowledged: true, status: 'processed' })
    const from = running.lines.length
    // Nothing asks the fake in the meantime: the command looks at waiting jobs itself.
    const sms = await running.waitFor(/\d {3}sent sms to ada <\+15550100>/, { from, timeoutMs: 4_000 })
    const transactionId = answer.result.transactionId ?? 'none'
    expect(sms).toContain(`reminder/sms-1 ${transactionId}`)
    // The delay step is no message: it has no line of its own.
    expect(running.lines.filter((line) => line.includes(transactionId))).toHaveLength(1)

    // A message the subscriber's preferences turn off is printed as not sent, with why.
    await novu.subscribers.preferences.update({ channels: { email: false } }, 'ada')
    const off = await novu.trigger({ workflowId: 'welcome', to: 'ada' })
    const notSent = await running.waitFor(/not sent email to ada/)
    expect(notSent).toContain(`welcome/email-1 ${off.result.transactionId} · canceled: `)

    const unknown = await novu.trigger({ workflowId: 'nope', to: 'ada' }).catch((e: unknown) => e)
    expect(unknown).toMatchObject({ statusCode: 422 })
    await running.waitFor(/ POST \/v1\/events\/trigger 422 /)
  })

  it('resets on POST /__notifykit/reset and on SIGHUP, keeping the seeds', async () => {
    running = await startCli(['--seeds', seeds, '--api-key', API_KEY])
    const client = clientOn(running)
    const first = await client.events.trigger({ name: 'welcome', to: 'ada' })
    const notification = await running.waitFor(/\d {3}sent in_app/)
    expect(notification).toContain(first.transactionId)
    const authorization = { authorization: `ApiKey ${API_KEY}` }

    // The route takes the fake's key when one is set.
    const refused = await fetch(`${running.baseUrl}/__notifykit/reset`, { method: 'POST' })
    expect(refused.status).toBe(401)
    const reset = await fetch(`${running.baseUrl}/__notifykit/reset`, {
      method: 'POST',
      headers: authorization,
    })
    expect(reset.status).toBe(200)
    expect(await reset.json()).toEqual({ data: { reset: true } })
    await running.waitFor(/reset \(POST \/__notifykit\/reset\)/)
    const gone = await fetch(`${running.baseUrl}/__notifykit/nothing`, {
      method: 'POST',
      headers: authorization,
    })
    expect(gone.status).toBe(404)

    // What the trigger did is forgotten (its in-app message too); the seeded workflow is still there.
    expect(await client.subscribers.messages.markAll('ada', { markAs: 'read' })).toBe(0)
    const from = running.lines.length
    await client.events.trigger({ name: 'welcome', to: 'ada' })
    await running.waitFor(/\d {3}sent in_app/, { from })

    running.child.kill('SIGHUP')
    await running.waitFor(/reset \(SIGHUP\)/)
    expect(running.child.exitCode).toBeNull()
    expect(await client.subscribers.messages.markAll('ada', { markAs: 'read' })).toBe(0)
    await client.close()
  })

  it('stops cleanly on SIGTERM and on SIGINT, exit code 0', async () => {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      running = await startCli([])
      const { baseUrl } = running
      running.child.kill(signal)
      expect(await running.exited).toBe(0)
      expect(running.lines.at(-1)).toMatch(new RegExp(`stopped \\(${signal}\\)$`))
      await expect(fetch(`${baseUrl}/v1/notifications/x`)).rejects.toThrow()
    }
  })

  it('prints one JSON object per line with --json', async () => {
    running = await startCli(['--json', '--seeds', seeds])
    const listening = JSON.parse(running.lines[0] ?? '{}')
    expect(listening).toMatchObject({ type: 'listening', baseUrl: running.baseUrl, apiKey: 'any' })
    const client = clientOn(running)
    await client.events.trigger({ name: 'welcome', to: 'ada', payload: { plan: 'pro' } })
    const line = await running.waitFor(/"channel":"email"/)
    expect(JSON.parse(line)).toMatchObject({
      type: 'message',
      sent: true,
      channel: 'email',
      subscriberId: 'ada',
      to: 'ada@example.com',
      workflow: 'welcome',
      payload: { plan: 'pro' },
    })
    await client.close()
  })

  it('refuses a bad option, a bad seeds file and a port in use, with a message and no stack', async () => {
    const typo = await runCli(['fake', '--prot', '4000'])
    expect(typo).toMatchObject({ code: 2 })
    expect(typo.stderr).toContain('unknown option --prot; did you mean `--port`?')
    const badSeeds = join(dir, 'bad.json')
    writeFileSync(badSeeds, JSON.stringify({ workflow: [] }))
    const seedsError = await runCli(['fake', '--port', '0', '--seeds', badSeeds])
    expect(seedsError.code).toBe(1)
    expect(seedsError.stderr).toContain('unknown key "workflow"; did you mean `workflows`?')

    running = await startCli([])
    const port = new URL(running.baseUrl).port
    const inUse = await runCli(['fake', '--port', port])
    expect(inUse.code).toBe(1)
    expect(inUse.stderr).toContain(`port ${port} is in use`)
    expect(inUse.stderr).not.toMatch(/\n\s+at /)
  })
})
