import type { RequestOptions } from '../../core/options.js'
import { parseRateLimitPolicy, parseRetryAfterMs, type ResponseHeaders } from '../http/response-headers.js'
import { callerAbortError } from '../transport/attempt.js'
import { MAX_RETRY_AFTER_MS } from './retry-policy.js'
import { deadlineError } from './waits.js'

/**
 * Paces every request of a client that draws from the server's `trigger` token bucket, so that
 * concurrent requests wait for the refill together instead of each finding the limit with a 429.
 * @internal
 */
export interface Pacer {
  /**
   * Takes `cost` units for an attempt: its mark (the units let through, its own included) when it
   * may go now, else a promise of it, which rejects on the call's `signal` or at once when the wait
   * would end past `deadline`. Every `acquire` that does not reject is followed by a `settle`.
   */
  acquire(cost: number, options: RequestOptions, deadline: number | undefined): Promise<number> | number
  /** Ends an attempt `acquire` let through, with the answer's `RateLimit-*` headers if one arrived. */
  settle(cost: number, mark: number, response?: { status: number; headers: ResponseHeaders }): void
  /** Whether requests of `cost` are too coarse to pace on the bucket (below); undefined before any answer. */
  coarse(cost: number): boolean | undefined
}

// A fleet is many clients (serverless instances) on one API key, so one bucket on the server, that
// never talk to each other. Each client sends at its share of the bucket's refill, and of what the
// server says is left above a level the fleet keeps for the requests in flight no client sees yet:
// a bulk request per `STEP` (one from each of that many clients), `LEVEL_KEPT` of the bucket at most.
// A window is the time the refill takes to restore that level. Once per window a client sets its
// share from the `RateLimit-Remaining` that every client sees alike: the bucket's fall over the
// window, with its refill, is what the fleet drew, and the client's own units over that are its part.
// Parts add up to one whoever is in the fleet, so a newcomer's draw takes its room from the others'
// parts and a leaver's is taken up by the next decisions. The new share is the part, scaled down
// when the fleet drew more than would have kept the level (one factor for every client), plus
// an equal `STEP` per window of time: proportional steps down and equal steps up make the shares
// converge to equal ones (Chiu and Jain), the steps being what the fleet overdraws below the level.
// A client alone keeps no level, until a window shows others drawing more than a step of it: its
// share is then two steps at most, the room a newcomer takes. A newcomer, or a client idle for a
// window, keeps the level, sends a bulk request's units blind, then has a step of the level in
// flight at most until its first decision; its share is meanwhile its part of what the bucket lacks
// (full before it came), as much again in flight from others unseen, two steps at least. A 429 cuts
// the share by `CUT` and is the window's decision (not a newcomer's); its `Retry-After` pauses all.
// Where `LEVEL_KEPT` of the bucket holds less than a bulk request per step (free, pro), those are too
// coarse: a stream sends singles, and the level is half as much, a newcomer's blind bulk request and
// two steps of it at least; the window stays the bulk level's refill, long enough to tell the draw.

/** What a 429 leaves of a share. */
const CUT = 0.7
/** What each client adds to its share per window: equal steps close the gap between shares. */
const STEP = 1 / 8
/** The smallest share: a client keeps sending a trickle, and so keeps reading the bucket. */
const MIN_SHARE = 1 / 64
/** The most of the bucket a fleet leaves in it, for the requests in flight no client sees yet. */
const LEVEL_KEPT = 2 / 5
/** A bulk request's units: the level is counted in them, and a newcomer sends as many blind. */
const BULK_UNITS = 100

/**
 * A pacer that knows nothing yet: until an answer carries `RateLimit-*` headers or a 429's `Retry-After`,
 * `acquire` returns at once, allocates nothing and reads no clock: an unpaced server costs nothing. @internal
 */
export function createRateLimiter(): Pacer {
  /** The trigger bucket as the latest policy states it: units it holds, units it refills per ms. */
  let capacity = 0
  let refillPerMs = 0
  /** The part of the refill, and of what is left above the level kept, this client takes. */
  let share = 1
  /** Where the window began: when, what was left, and the units this client had had answered. */
  let decided: { at: number; remaining: number; mark: number } | undefined
  let joining = true
  /** Whether a decision since this client joined saw others draw: a client alone keeps no level. */
  let othersSeen = false
  /** The units this client may send, as of `at`; they grow at its share of the refill. */
  let credit = { units: 0, at: 0 }
  /** After a 429, nothing is sent before this time. */
  let pausedUntil = 0
  /** Units sent and not answered yet. */
  let inFlight = 0
  /** Units sent so far: a request's mark is this count once it goes. */
  let letThrough = 0
  /** Units sent before this client joined (again): its part of what the bucket lacks is counted after. */
  let joinedAt = 0
  /** When this client last sent or read an answer. */
  let busyAt = 0
  /** Units sent when the latest answer that set the credit was read. */
  let latestMark = 0
  let answered = false
  /** Requests waiting for their turn, first come first served; `timer` wakes the first. */
  const line: { cost: number; go: (mark: number) => void }[] = []
  let timer: ReturnType<typeof setTimeout> | undefined

  /** The level of bulk requests, one per step at most; where they are too coarse, singles keep less. */
  const bulkLevel = () => Math.min(LEVEL_KEPT * capacity, BULK_UNITS / STEP)
  const tooCoarse = (cost: number) => bulkLevel() < cost / STEP
  const fleetLevel = (bulk = bulkLevel()) =>
    tooCoarse(BULK_UNITS) ? Math.min(bulk, Math.max(bulk / 2, BULK_UNITS / (1 - 2 * STEP))) : bulk
  /** A newcomer keeps the level; a client whose decisions have seen no other draw keeps none. */
  const levelKept = () => (joining || othersSeen ? fleetLevel() : 0)
  /** A window, in ms: the time the refill takes to restore the bulk level, in singles too. */
  const windowMs = () => (refillPerMs > 0 ? bulkLevel() / refillPerMs : Infinity)
  /** The credit at `now`, up to this client's part of the bucket above the level kept. */
  const creditAtTime = (now: number) =>
    Math.min(share * (capacity - levelKept()), credit.units + (now - credit.at) * refillPerMs * share)
  /** A new share from now on, or from the end of a pause: what the pause left owed stays owed. */
  const setShare = (value: number, now: number, from = Math.max(now, credit.at)) => {
    credit = { units: creditAtTime(from), at: from }
    share = Math.max(MIN_SHARE, Math.min(1, value))
  }

  /** Until its first decision, a newcomer has a bulk request blind, then a step of the level in flight. */
  const wave = () => (capacity ? STEP * fleetLevel() : answered ? Infinity : BULK_UNITS)
  const waveFull = (cost: number) => inFlight > 0 && joining && inFlight + cost > wave()

  /** When `units` may go: once the credit holds them (or all it can hold), and the pause is over. */
  const readyAt = (units: number, now: number) => {
    if (capacity === 0) return pausedUntil
    const missing = Math.min(units, share * (capacity - levelKept())) - creditAtTime(now)
    return Math.max(pausedUntil, now + Math.max(0, missing) / (refillPerMs * share))
  }

  const send = (cost: number, now: number) => {
    if (capacity !== 0) credit = { units: creditAtTime(now) - cost, at: now }
    busyAt = now
    inFlight += cost
    letThrough += cost
    return letThrough
  }

  /** Lets the requests in line go whose turn has come, and sets the timer for the next. */
  const release = () => {
    clearTimeout(timer)
    const now = Date.now()
    for (let first = line[0]; first !== undefined; first = line[0]) {
      // A full wave waits for an answer, which releases the line again.
      if (waveFull(first.cost)) return
      const at = readyAt(first.cost, now)
      if (at > now) {
        timer = setTimeout(release, Math.ceil(at - now))
        return
      }
      line.shift()
      first.go(send(first.cost, now))
    }
  }

  const take = (cost: number, { signal, deadlineMs }: RequestOptions, deadline: number | undefined) => {
    if (line.length === 0 && capacity === 0 && pausedUntil === 0 && !waveFull(cost)) return send(cost, 0)
    const now = Date.now()
    // A client that has had nothing to send for a window no longer knows the fleet: it joins again.
    if (!joining && inFlight === 0 && line.length === 0 && now - busyAt > windowMs()) {
      joining = true
      othersSeen = false
      decided = undefined
      joinedAt = letThrough
    }
    const queued = line.reduce((units, waiting) => units + waiting.cost, cost)
    const at = readyAt(queued, now)
    if (line.length === 0 && at <= now && !waveFull(cost)) return send(cost, now)
    // Waiting for a turn that comes after the deadline would only delay the same failure.
    if (deadline !== undefined && at >= deadline) throw deadlineError(deadlineMs)
    if (signal?.aborted) throw callerAbortError(signal)
    return new Promise<number>((resolve, reject) => {
      const onAbort = () => {
        line.splice(line.indexOf(waiter), 1)
        reject(callerAbortError(signal))
        release()
      }
      const waiter = {
        cost,
        go: (mark: number) => {
          signal?.removeEventListener('abort', onAbort)
          resolve(mark)
        },
      }
      signal?.addEventListener('abort', onAbort, { once: true })
      line.push(waiter)
      if (line.length === 1) release()
    })
  }

  /** A newcomer's share: its part of what the bucket lacks, two steps at least (the paragraph above). */
  const join = (remaining: number, now: number, own = letThrough - joinedAt) =>
    own > 0 && setShare(Math.min(share, Math.max(2 * STEP, own / (capacity - remaining + own))), now)

  /** A window from an answer read now, this client's units counted from those answered by then. */
  const windowAt = (at: number, remaining: number) => ({ at, remaining, mark: letThrough - inFlight })

  /** The window's decision, from a report of the bucket (the paragraph above). */
  const decide = (now: number, remaining: number, mark: number) => {
    // The first window starts a step below full, where the refill has somewhere to go, and a step below
    // the level at most, where a fleet that keeps it holds the bucket: one that sees no other draw is alone.
    const start = capacity - remaining >= STEP * fleetLevel() && remaining >= (1 - STEP) * fleetLevel()
    if (!decided && start) decided = windowAt(now, remaining)
    if (!decided || mark <= decided.mark || now - decided.at < windowMs()) return
    // What the fleet drew over the window: what the bucket would hold had nobody drawn, less what is left.
    const refilled = decided.remaining + (now - decided.at) * refillPerMs
    const expected = Math.min(capacity, refilled)
    const own = mark - decided.mark
    const drawn = Math.max(own, expected - remaining)
    // Others' draw, counting as this client's every unit it had in flight in the window: a step's is noise.
    const firstSeen = !othersSeen && refilled - remaining - (letThrough - decided.mark) > STEP * fleetLevel()
    othersSeen ||= firstSeen
    joining = false
    const target = expected - levelKept()
    const factor = drawn > target ? Math.max(0, target) / drawn : 1
    const next = (own / drawn) * factor + (STEP * (now - decided.at)) / windowMs()
    setShare(firstSeen ? Math.min(next, 2 * STEP) : next, now)
    decided = windowAt(now, remaining)
  }

  /** A 429: a cut, unless this window has had its decision; a newcomer's is no decision. */
  const cut = (now: number, remaining: number) => {
    if (!joining && decided !== undefined && now - decided.at < windowMs()) return
    setShare(share * CUT, now)
    if (!joining) decided = windowAt(now, remaining)
  }

  /** What an answer says of the bucket: its policy and what is left, or a 429's pause. */
  const read = (mark: number, { status, headers }: { status: number; headers: ResponseHeaders }) => {
    const policy = parseRateLimitPolicy(headers['ratelimit-policy'])
    const { w, burst, category } = policy?.parameters ?? {}
    // Triggers draw from the trigger bucket only: another category's numbers are another bucket's.
    if (category !== undefined && category !== 'trigger') return
    const now = Date.now()
    busyAt = now
    const remaining = Number(headers['ratelimit-remaining'])
    // `<limit>;w=<seconds>;burst=<units>`: the limit refills in w s; the bucket holds the burst, or limit.
    const described = policy !== undefined && Number(w) > 0 && remaining >= 0
    if (described) {
      capacity = Number(burst) > 0 ? Number(burst) : policy.limit
      refillPerMs = policy.limit / (Number(w) * 1000)
    }
    if (joining && described) join(remaining, now)
    if (status === 429) cut(now, described ? remaining : 0)
    else if (described) decide(now, remaining, mark)
    // Without `Retry-After` the 429'd request backs off as a retry does; a longer one than a retry
    // waits out fails that call at once, and so the others, instead of holding them unseen.
    const pauseMs = status === 429 ? parseRetryAfterMs(headers) : undefined
    if (pauseMs !== undefined && pauseMs <= MAX_RETRY_AFTER_MS && now + pauseMs > pausedUntil) {
      // Empty until the pause ends, less what is sent and not answered.
      pausedUntil = now + pauseMs
      credit = { units: -inFlight, at: pausedUntil }
    } else if (described && now >= pausedUntil) {
      // Its part above the level, less its units in flight. A request that went out before the latest
      // word was read may have been taken before or after the requests answered since: it only lowers.
      const credited = share * (remaining - levelKept()) - inFlight
      if (mark > latestMark || credited < creditAtTime(now)) {
        latestMark = letThrough
        credit = { units: credited, at: now }
      }
    }
  }

  return {
    acquire: take,
    settle(cost, mark, response) {
      inFlight -= cost
      answered = true
      if (response !== undefined) read(mark, response)
      if (line.length > 0) release()
    },
    coarse: (cost) => (capacity ? tooCoarse(cost) : answered ? false : undefined),
  }
}
