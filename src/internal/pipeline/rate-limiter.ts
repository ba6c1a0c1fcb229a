import type { RequestOptions } from '../../core/options.js'
import { parseRetryAfterMs, type ResponseHeaders } from '../http/response-headers.js'
import { callerAbortError } from '../transport/attempt.js'
import { MAX_RETRY_AFTER_MS } from './retry-policy.js'
import { deadlineError, sleep } from './waits.js'

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

// The pacing of a fleet: many clients (serverless instances) sharing one API key, and so one bucket
// on the server, without talking to each other. Each client takes a share of the bucket: of what
// the server says is left, and of its refill. Alone, the share is all of it. The server's headers
// are what every client sees alike: what the bucket lacks beyond a client's own use is what others
// drew. Seeing others, a client takes no more than its part of what was drawn, and every half
// refill window scales its share so that all of them together draw what the bucket refills, plus
// what it holds over `LEVEL_KEPT` of it; each reads the same headers, so each scales alike, and the
// shares settle where they sum to the whole. Seeing others, a share grows by no more than
// `MAX_SHARE_GAIN` of the bucket at a time (TCP's additive increase: a large share no faster than a
// small one), and a client with less than the whole sends at its share's pace rather than in a
// burst of what it left unused. A 429 cuts the share (by `CUT_FACTOR`) as the AWS SDKs' adaptive
// retry mode cuts its fill rate, and it grows back along a CUBIC curve as theirs does: fast at
// first, flat near the share it had, then probing beyond it. The shares do not converge to equal
// ones: clients that started first keep more, and the last ones grow back to the whole bucket.

/** A cut keeps at least this much of the share it cuts. */
const CUT_FACTOR = 0.7
/** How fast the share grows back (per second cubed, times the share before the cut). */
const CUBIC_SCALE = 0.4
/** The smallest share: a client always keeps a trickle. */
const MIN_SHARE = 1 / 64
/**
 * Units in flight before the first answer: two bulk requests or broadcasts, as many as `triggerBulk`
 * sends at once by default, so that a client alone meets the limit only when it asks for more.
 */
const FIRST_WAVE_UNITS = 200
/** The least time between two cuts, when the bucket's refill is not known. */
const MIN_CUT_INTERVAL_MS = 250
/** Others are said to be drawing only when they drew more than this part of the bucket since the anchor. */
const NOISE_SHARE_OF_BUCKET = 0.05
/** The part of the bucket a fleet leaves in it, for the requests in flight it cannot see. */
const LEVEL_KEPT = 1 / 4
/** A change of the share by more than this part of it makes waiting turns measured again. */
const SHARE_CHANGE_NOTICED = 0.1
/** The most a share grows by, in a fleet, per half refill window: a part of the whole bucket. */
const MAX_SHARE_GAIN = 0.05
/** How long a turn sleeps before it looks again at a picture that may have changed meanwhile. */
const RECHECK_MS = 100
/** The most a share changes by, up or down, per half refill window between two readings of the headers. */
const MAX_SHARE_STEP = 2

/**
 * A pacer that knows nothing yet. Until a response carries `RateLimit-*` headers or a 429 with
 * `Retry-After`, `acquire` returns at once with nothing allocated and no clock read (but for the
 * first answer, below): a server that does not rate-limit costs nothing.
 * @internal
 */
export function createRateLimiter(): Pacer {
  /** The bucket's size in units; 0 until a response said. */
  let size = 0
  /** How long the empty bucket takes to fill; 0 until a response said. */
  let fillMs = 0
  /** How long one unit takes to come back to the whole bucket; 0 until a response said. */
  let msPerUnit = 0
  /**
   * When this client's share of the bucket will be full again if nothing more is taken, counting
   * every request let through (a virtual clock: each request moves it on by its cost). 0 until the
   * server said anything about its bucket, and then nothing ever waits.
   */
  let fullAt = 0
  /** After a 429, nothing is sent before this time. */
  let pausedUntil = 0
  /** Units of the requests let through and not answered yet, those waiting for their turn included. */
  let inFlight = 0
  /** Units of the requests waiting for their turn. */
  let waiting = 0
  /** Units let through so far: a request's mark is this count once it goes. */
  let letThrough = 0
  /** The mark of the latest request whose answer said what is left in the bucket. */
  let latestMark = 0
  /** 429 pauses so far: a turn taken before one is taken again after it. */
  let pauses = 0
  /** Changes of the share read from the headers: a turn taken before one is measured again. */
  let shareChanges = 0
  /** Whether any attempt has ended: before that, `FIRST_WAVE_UNITS` at most are in flight. */
  let answered = false
  let firstAnswer: { promise: Promise<void>; resolve: () => void } | undefined

  /** The part of the bucket this client takes, in (0, 1]. */
  let share = 1
  /** The CUBIC curve since the share was last set: the share before, when, and how long regrowth to it takes. */
  let shareBeforeCut = 1
  let cutAt = 0
  let regrowSeconds = 0
  /** When a 429 last cut the share. */
  let lastCutAt = 0
  /** The report the others' use is measured from: when it came, what it said was left, its request's mark. */
  let anchor: { at: number; remaining: number; mark: number } | undefined

  const msPerOwnUnit = () => msPerUnit / share

  /**
   * Moves the virtual clock on by a request's `held` time. Alone, a share left unused meanwhile may
   * be drawn at once, up to the whole of it; in a fleet, what one client left unused is for the
   * others, and its requests go one at a time at its share's pace.
   */
  const advance = (now: number, held: number) => {
    fullAt = Math.max(fullAt, share < 1 ? now + fillMs - held : now) + held
  }

  const wait = async (
    waitMs: number,
    cost: number,
    held: number,
    { signal, deadlineMs }: RequestOptions,
    deadline?: number,
  ): Promise<number> => {
    waiting += cost
    try {
      let pausesSeen = pauses
      let sharesSeen = shareChanges
      for (let remainingMs = waitMs; remainingMs > 0; ) {
        // Waiting for a turn that comes after the deadline would only delay the same failure.
        if (deadline !== undefined && Date.now() + remainingMs >= deadline) throw deadlineError(deadlineMs)
        const sleptFrom = Date.now()
        await sleep(Math.min(remainingMs, RECHECK_MS), signal, () => callerAbortError(signal))
        const now = Date.now()
        if (pausesSeen !== pauses || sharesSeen !== shareChanges) {
          // The turn is taken again. After a 429 the picture was emptied until the pause ends, this
          // turn with it: going when the pause ends would send every waiting request at once into
          // the bucket that just refused one. After a change of the share the turn was measured in
          // the old one: given back first, so that a share grown back does not sit out the long turns
          // of a small one.
          if (pausesSeen === pauses) fullAt -= held
          pausesSeen = pauses
          sharesSeen = shareChanges
          held = cost * msPerOwnUnit()
          advance(now, held)
          remainingMs = Math.max(pausedUntil, fullAt - fillMs) - now
        } else {
          remainingMs -= now - sleptFrom
        }
      }
    } catch (error) {
      inFlight -= cost
      fullAt -= held
      throw error
    } finally {
      waiting -= cost
    }
    letThrough += cost
    return letThrough
  }

  const take = (
    cost: number,
    options: RequestOptions,
    deadline: number | undefined,
  ): Promise<number> | number => {
    // Counted even before the server has said anything: the first answer's `RateLimit-Remaining`
    // may not include the requests sent with it.
    inFlight += cost
    if (fullAt !== 0) {
      const now = Date.now()
      growShare(now)
      const held = cost * msPerOwnUnit()
      advance(now, held)
      // It may go once the share is short of full by no more than it holds.
      const waitMs = fullAt - fillMs - now
      if (waitMs > 0) return wait(Math.ceil(waitMs), cost, held, options, deadline)
    }
    letThrough += cost
    return letThrough
  }

  /**
   * Before the first answer, no more than `FIRST_WAVE_UNITS` in flight (any number of triggers, two
   * bulk requests or broadcasts): the bucket may be shared, and a fleet of clients starting at once,
   * each sending all it may, would overdraw it before any learns of it.
   */
  const afterFirstAnswer = async (
    cost: number,
    options: RequestOptions,
    deadline: number | undefined,
  ): Promise<number> => {
    firstAnswer ??= withResolvers()
    const { signal } = options
    await sleepUntil(firstAnswer.promise, signal)
    return take(cost, options, deadline)
  }

  const growShare = (now: number) => {
    if (share >= 1) return
    const t = (now - cutAt) / 1000 - regrowSeconds
    share = Math.min(1, Math.max(share, shareBeforeCut * (1 + CUBIC_SCALE * t * t * t)))
  }

  /** A share read from the headers: the CUBIC curve, if the share grows back alone, starts from it. */
  const setShare = (value: number, now: number) => {
    if (Math.abs(value - share) > share * SHARE_CHANGE_NOTICED) shareChanges++
    shareBeforeCut = Math.max(value, share)
    share = value
    cutAt = now
    regrowSeconds = Math.cbrt((1 - share / shareBeforeCut) / CUBIC_SCALE)
  }

  /** After a 429: once per half refill window, the requests of the cut take that long to show. */
  const cutShare = (now: number) => {
    if (now - lastCutAt < Math.max(fillMs / 2, MIN_CUT_INTERVAL_MS)) return
    lastCutAt = now
    growShare(now)
    setShare(Math.max(MIN_SHARE, share * CUT_FACTOR), now)
  }

  /**
   * Reads a report of the bucket (the pacing, above). The units this client let through between the
   * anchor's request and this one are what it drew meanwhile, as the server counts requests when they
   * arrive; what the bucket lacks beyond them is what others drew.
   */
  const learnFromReport = (now: number, remaining: number, mark: number) => {
    // An answer overtaken by the anchor's says nothing the anchor did not.
    if (anchor !== undefined && mark < anchor.mark) return
    // Taken as full before this client's first request: a fleet starting together learns of itself at once.
    const from = anchor ?? { at: now, remaining: size, mark: 0 }
    const ownDrew = mark - from.mark
    const expected = Math.min(size, from.remaining + (now - from.at) / msPerUnit)
    const othersDrew = expected - ownDrew - remaining
    // Answers overtaking each other, and requests that reach the server in another order than they
    // left, blur the count by about a request or two.
    const othersSeen = othersDrew > size * NOISE_SHARE_OF_BUCKET
    if (othersSeen) {
      // At once, no more than this client's part of what was drawn.
      const part = Math.max(MIN_SHARE, ownDrew / (ownDrew + othersDrew))
      if (part < share) setShare(part, now)
    }
    // Rates are read over half a refill window at least: over shorter spans they are noise.
    if (anchor !== undefined && now - anchor.at < fillMs / 2) return
    if (anchor !== undefined && (othersSeen || share < 1)) {
      // Scaled so that all of them draw what the bucket refills, plus what it holds over
      // `LEVEL_KEPT` of it (less, under it). Alone, that grows the share back as fast as the bucket
      // allows.
      const refillPerSecond = 1000 / msPerUnit
      const wanted = refillPerSecond + (remaining - size * LEVEL_KEPT) / (fillMs / 1000)
      const drawn = (ownDrew + Math.max(0, othersDrew)) / ((now - anchor.at) / 1000)
      // A client with a small share sends seldom, and reads seldom: the longer since the anchor,
      // the further its share may move, so that one left alone is soon back to the whole bucket.
      const step = MAX_SHARE_STEP ** ((now - anchor.at) / (fillMs / 2))
      let factor = Math.min(step, Math.max(1 / step, wanted / drawn))
      // A span with a 429 pause in it shows how little was drawn while everyone waited, not what
      // the fleet would draw: it may lower the share, never raise it.
      if (anchor.at < pausedUntil) factor = Math.min(1, factor)
      // Seeing others, a share grows by at most `MAX_SHARE_GAIN` of the bucket, a large one no
      // faster than a small one.
      let next = share * factor
      if (othersSeen) next = Math.min(next, share + MAX_SHARE_GAIN)
      setShare(Math.min(1, Math.max(MIN_SHARE, next)), now)
    }
    anchor = { at: now, remaining, mark }
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
      const { headers } = response
      const now = Date.now()
      // The bucket as the first policy states it (`<quota>;w=<seconds>`: what it holds, and how long
      // it takes to fill), and what is left in it. Most servers send neither.
      const policy = /^([\d.]+)\s*;\s*w=([\d.]+)/.exec(headers['ratelimit-policy'] ?? '')
      const quota = Number(policy?.[1])
      const fillSeconds = Number(policy?.[2])
      const remaining = Number(headers['ratelimit-remaining'])
      const described = quota > 0 && fillSeconds > 0 && remaining >= 0
      if (described) {
        size = quota
        fillMs = fillSeconds * 1000
        msPerUnit = fillMs / size
        learnFromReport(now, remaining, mark)
      }
      // Without `Retry-After` the 429'd request backs off as any retry does; the bucket headers, if
      // any, still hold the others back until the refill.
      const pauseMs = response.status === 429 ? parseRetryAfterMs(headers) : undefined
      if (response.status === 429) cutShare(now)
      // A longer `Retry-After` than a retry would wait out fails that call at once (RateLimitError),
      // and so it does the others: each sent and refused, instead of held unseen for minutes.
      if (pauseMs !== undefined && pauseMs <= MAX_RETRY_AFTER_MS && now + pauseMs > pausedUntil) {
        pausedUntil = now + pauseMs
        pauses++
        // Empty until the pause ends, and what is sent and not answered is taken from it.
        fullAt = pausedUntil + fillMs + (inFlight - waiting) * msPerOwnUnit()
      } else if (described && now >= pausedUntil && mark >= latestMark) {
        // The latest word on the bucket (answers overtake each other: an older one says less):
        // this client's part of what is left, less what it has in flight. Some of that the server
        // has counted already: the margin that keeps the bucket from being drawn to the last unit
        // while requests are on their way.
        latestMark = mark
        fullAt = now + fillMs - (share * remaining - inFlight) * msPerOwnUnit()
      }
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
