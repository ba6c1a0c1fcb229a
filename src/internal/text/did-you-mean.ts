// The name probably meant by a misspelt one: an option (`timoutMs`) or a request field (`payloadd`).

/**
 * The candidate `name` stands for, if one is close; compared in lower case, so `timeOutMs` is the
 * same name as `timeoutMs` (a `_` or `-` is one slip: `idempotency_key` → `idempotencyKey`).
 * Close is either:
 * - a slip of a few letters: at most one edit (a letter added, dropped, changed, or two swapped) per
 *   four letters, at least one: `timoutMs`, `payloadd`, `contxt`, `overide` → `overrides`;
 * - the name cut or extended at one end, the shorter holding at least four letters and half the
 *   longer: `retries` → `maxRetries`, `deadline` → `deadlineMs`, `headers` → `defaultHeaders`.
 * Nothing else is suggested: a word that only shares letters with a name (`environment`, `data`)
 * gets no suggestion, which is better than a wrong one. The nearest slip wins, then the tightest fit.
 */
export function closest(name: string, candidates: readonly string[]): string | undefined {
  const typed = normalized(name)
  if (typed === '') return undefined
  let best: string | undefined
  let bestScore = Number.POSITIVE_INFINITY
  for (const candidate of candidates) {
    const score = distance(typed, normalized(candidate))
    if (score < bestScore) {
      best = candidate
      bestScore = score
    }
  }
  return best
}

/** `; did you mean `payload`?`, or nothing when no candidate is close. */
export function didYouMean(name: string, candidates: readonly string[]): string {
  const meant = closest(name, candidates)
  return meant ? `; did you mean \`${meant}\`?` : ''
}

const LETTERS_PER_EDIT = 4
const MIN_FIT_LETTERS = 4
/**
 * Any slip within its limit ranks before any fit at one end. (A fit's difference already exceeds
 * any slip's edits; the rank says so without the arithmetic.)
 */
const FIT_RANK = 1_000

/** How far `typed` is from `known`, or infinity when it is not close (see `closest`). */
function distance(typed: string, known: string): number {
  const longest = Math.max(typed.length, known.length)
  const limit = Math.max(1, Math.floor(longest / LETTERS_PER_EDIT))
  const edits = editsWithin(typed, known, limit)
  if (edits <= limit) return edits
  const [shorter, longer] = typed.length < known.length ? [typed, known] : [known, typed]
  const fits = longer.startsWith(shorter) || longer.endsWith(shorter)
  if (!fits || shorter.length < MIN_FIT_LETTERS || shorter.length * 2 < longer.length) {
    return Number.POSITIVE_INFINITY
  }
  return FIT_RANK + longer.length - shorter.length
}

function normalized(name: string): string {
  return name.toLowerCase()
}

/**
 * The edits (insertion, deletion, substitution, transposition of neighbours) from `a` to `b`, or
 * `limit + 1` as soon as it is sure to be more than `limit`.
 */
function editsWithin(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1
  let before: number[] = []
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    let rowBest = i
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let value = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + cost,
      )
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, (before[j - 2] as number) + 1)
      }
      current.push(value)
      rowBest = Math.min(rowBest, value)
    }
    if (rowBest > limit) return limit + 1
    before = previous
    previous = current
  }
  return previous[b.length] as number
}
