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
   * Takes `cost` units for an attempt. Returns its mark (the units this pacer has let through, the
   * attempt's included) when it may go now, or a promise of it that resolves when it may go and
   * rejects (the units given back) on the call's `signal`, or at once when the wait would end past
   * `deadline`. Every `acquire` that does not reject is followed by a `settle` with its mark.
   */
  acquire(cost: number, options: RequestOptions, deadline: number | undefined): Promise<number> | number
  /**
   * Ends an attempt that `acquire` let through: `response` is undefined when none arrived. Its
   * `RateLimit-Policy` and `RateLimit-Remaining` correct the picture of the bucket; a 429's
   * `Retry-After` pauses every request of this pacer.
   */
  settle(cost: number, mark: number, response?: { status: number; headers: ResponseHeaders }): void
}

// A fleet is many clients (serverless instances) on one API key, so one bucket on the server, that
// never talk to each other. Each client sends at its share of the bucket's refill, and of what the
// server says is left above the level it keeps in the bucket (`LEVEL_KEPT`, for requests in flight
// that no client sees yet). Once per window, the time the refill takes to restore that level, each
// client makes one decision from the `RateLimit-Remaining` that every client sees alike: it adds
// `STEP` per window since its last decision to its share, then scales the sum by one factor, the
// same for every client: what the fleet could have drawn over the window and left the level, over
// what it drew (at most `CUT` when the window ended below the level; at least 1 / `CUT`). Scaling
// keeps the ratio between two shares and the equal step closes their gap, so the shares converge to
// equal ones while together they draw the refill (Chiu and Jain's additive increase, multiplicative
// decrease). A newcomer is paced from its first answer by its part of what the bucket lacks, taken
// as full before it came: alone, all of it; among others, about their share; in its first window it
// keeps no level but sends no more than the first wave at once, since others that started with it
// may not show yet. A 429 cuts the share by `CUT` and is its window's decision; its `Retry-After`
// pauses every request of the client until then.

/** What a 429 leaves of a share; a window raises a share by at most its inverse. */
const CUT = 0.7
/** What each client adds to its share each window: equal steps close the gap between shares. */
const STEP = 1 / 16
/** The smallest share: a client keeps sending a trickle, and so keeps reading the bucket. */
const MIN_SHARE = 1 / 64
/** The part of the bucket a fleet leaves in it, for the requests in flight no client sees yet. */
const LEVEL_KEPT = 1 / 4
/**
 * Units in flight before the first answer: two bulk requests or broadcasts, as many as `triggerBulk`
 * sends at once by default, so that a client alone meets the limit only when it asks for more.
 */
const FIRST_WAVE_UNITS = 200

/**
 * A pacer that knows nothing yet. Until a response carries `RateLimit-*` headers or a 429 with
 * `Retry-After`, `acquire` returns at once with nothing allocated and no clock read: a server that
 * does not rate-limit costs nothing.
 * @internal
 */
export function createRateLimiter(): Pacer {
  /** The trigger bucket as the latest policy states it: units it holds, units it refills per ms. */
  let capacity = 0
  let refillPerMs = 0
  /** The part of the bucket this client takes, in [`MIN_SHARE`, 1]. */
  let share = 1
  /** In its first window, each answer may lower a client's share to its part of what it saw drawn. */
  let joining = true
  /** The latest decision: when, what the bucket had left then, and the mark of that answer's request. */
  let decided: { at: number; remaining: number; mark: number } | undefined
  /** The units this client may send, as of `creditAt`; they grow at its share of the refill. */
  let credit = 0
  let creditAt = 0
  /** After a 429, nothing is sent before this time. */
  let pausedUntil = 0
  /** Units sent and not answered yet. */
  let inFlight = 0
  /** Units sent so far: a request's mark is this count once it goes. */
  let letThrough = 0
  /** The mark of the latest request whose answer set the credit. */
  let latestMark = 0
  let answered = false
  let firstAnswer: { promise: Promise<void>; resolve: () => void } | undefined
  /** Requests waiting for their turn, first come first served; `timer` wakes the first. */
  const line: { cost: number; go: (mark: number) => void }[] = []
  let timer: ReturnType<typeof setTimeout> | undefined

  /** In its first window a client keeps no level: it does not know yet whether it is alone. */
  const levelKept = () => (joining ? 0 : LEVEL_KEPT * capacity)
  /** The window: how long the refill takes to restore the level a fleet keeps. */
  const windowMs = () => (LEVEL_KEPT * capacity) / refillPerMs
  /**
   * The credit at `now`, up to this client's part of the bucket above the level kept; in its first
   * window, up to the first wave, since its first answers may not show yet the others that started
   * with it.
   */
  const creditAtTime = (now: number) =>
    Math.min(
      joining ? FIRST_WAVE_UNITS : share * (capacity - levelKept()),
      credit + (now - creditAt) * refillPerMs * share,
    )
  const setCredit = (units: number, now: number) => {
    credit = units
    creditAt = now
  }

  /** When `units` may go: once the credit holds them (or all it can hold), and the pause is over. */
  const readyAt = (units: number, now: number) => {
    if (capacity === 0) return pausedUntil
    const missing = Math.min(units, share * (capacity - levelKept())) - creditAtTime(now)
    return Math.max(pausedUntil, now + Math.max(0, missing) / (refillPerMs * share))
  }

  const send = (cost: number, now: number) => {
    if (capacity !== 0) setCredit(creditAtTime(now) - cost, now)
    inFlight += cost
    letThrough += cost
    return letThrough
  }

  /** Lets the requests in line go whose turn has come, and sets the timer for the next. */
  const release = () => {
    clearTimeout(timer)
    timer = undefined
    const now = Date.now()
    for (let first = line[0]; first !== undefined; first = line[0]) {
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
    if (line.length === 0 && capacity === 0 && pausedUntil === 0) return send(cost, 0)
    const now = Date.now()
    const queued = line.reduce((units, waiting) => units + waiting.cost, cost)
    const at = readyAt(queued, now)
    if (line.length === 0 && at <= now) return send(cost, now)
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

  /**
   * Before the first answer, no more than `FIRST_WAVE_UNITS` in flight: the bucket may be shared,
   * and a fleet starting at once, each client sending all it may, would overdraw it before any
   * learns of it.
   */
  const afterFirstAnswer = async (cost: number, options: RequestOptions, deadline: number | undefined) => {
    firstAnswer ??= withResolvers()
    await sleepUntil(firstAnswer.promise, options.signal)
    return take(cost, options, deadline)
  }

  const setShare = (value: number, now: number) => {
    setCredit(creditAtTime(now), now)
    share = Math.max(MIN_SHARE, Math.min(1, value))
  }

  /** The window's decision, from a report of the bucket (the paragraph above). */
  const decide = (now: number, remaining: number, mark: number) => {
    decided ??= { at: now, remaining, mark }
    if (mark < decided.mark || now - decided.at < windowMs()) {
      // In its first window, each answer may lower the share to this client's part of what the
      // bucket lacks, taken as full before it came: alone, all of it; among others, about theirs.
      if (joining && capacity > remaining) setShare(Math.min(share, letThrough / (capacity - remaining)), now)
      return
    }
    joining = false
    // What the fleet could have drawn over the window and left the level kept, against what it drew.
    const expected = decided.remaining + (now - decided.at) * refillPerMs
    const drawn = expected - remaining
    let factor = drawn > 0 ? (expected - levelKept()) / drawn : 1 / CUT
    if (remaining < levelKept()) factor = Math.min(factor, CUT)
    // A step per window of time, however often this client reads: a small share reads seldom.
    const step = (STEP * (now - decided.at)) / windowMs()
    setShare((share + step) * Math.min(1 / CUT, factor), now)
    decided = { at: now, remaining, mark }
  }

  /** A 429: a cut, unless this window has had its decision. */
  const cut = (now: number, remaining: number, mark: number) => {
    if (decided !== undefined && now - decided.at < windowMs()) return
    setShare(share * CUT, now)
    decided = { at: now, remaining, mark }
    joining = false
  }

  return {
    acquire(cost, options, deadline) {
      if (!answered && inFlight > 0 && inFlight + cost > FIRST_WAVE_UNITS) {
        return afterFirstAnswer(cost, options, deadline)
      }
      return take(cost, options, deadline)
    },

    settle(cost, mark, response) {
      inFlight -= cost
      if (!answered) {
        answered = true
        firstAnswer?.resolve()
      }
      if (response === undefined) return
      const { status, headers } = response
      const policy = parseRateLimitPolicy(headers['ratelimit-policy'])
      const { w, burst, category } = policy?.parameters ?? {}
      // Triggers draw from the trigger bucket only: another category's numbers are another bucket's.
      if (category !== undefined && category !== 'trigger') return
      const now = Date.now()
      const remaining = Number(headers['ratelimit-remaining'])
      // `<limit>;w=<seconds>;burst=<units>`: the limit is what the window refills, the burst what
      // the bucket holds (the limit, without it). Most servers send no policy.
      const described = policy !== undefined && Number(w) > 0 && remaining >= 0
      if (described) {
        capacity = Number(burst) > 0 ? Number(burst) : policy.limit
        refillPerMs = policy.limit / (Number(w) * 1000)
      }
      if (status === 429) cut(now, described ? remaining : 0, mark)
      else if (described) decide(now, remaining, mark)
      // Without `Retry-After` the 429'd request backs off as any retry does. A longer one than a retry
      // waits out fails that call at once, and so it does the others, instead of holding them unseen.
      const pauseMs = status === 429 ? parseRetryAfterMs(headers) : undefined
      if (pauseMs !== undefined && pauseMs <= MAX_RETRY_AFTER_MS && now + pauseMs > pausedUntil) {
        // Empty until the pause ends, less what is sent and not answered.
        pausedUntil = now + pauseMs
        setCredit(-inFlight, pausedUntil)
      } else if (described && now >= pausedUntil && mark >= latestMark) {
        // The latest word on the bucket (an overtaken answer says less): this client's part of what
        // is left above the level kept, less what it has in flight, some of which the server counted.
        latestMark = mark
        setCredit(share * (remaining - levelKept()) - inFlight, now)
      }
      if (line.length > 0) release()
    },
  }
}

function withResolvers(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => {}
  const promise = new Promise<void>((settle) => {
    resolve = settle
  })
  return { promise, resolve }
}

/** `promise`, or the caller's abort first. */
function sleepUntil(promise: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return promise
  if (signal.aborted) return Promise.reject(callerAbortError(signal))
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(callerAbortError(signal))
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(() => {
      signal.removeEventListener('abort', onAbort)
      resolve()
    })
  })
}
