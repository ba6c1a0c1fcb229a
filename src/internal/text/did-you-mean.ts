// The name probably meant by a misspelt one: an option (`timoutMs`) or a request field (`payloadd`).

/**
 * The candidate `name` stands for, if one does: compared by their consonants, case, separators and
 * doubled letters aside; the same skeleton first, else one within the other: `timeOutMs`,
 * `timoutMs` → `timeoutMs`; `idempotency_key` → `idempotencyKey`; `retries` → `maxRetries`;
 * `payloadd` → `payload`.
 */
export function closest(name: string, candidates: readonly string[]): string | undefined {
  const typed = skeleton(name)
  if (typed === '') return undefined
  const known = candidates.map(skeleton)
  const same = known.indexOf(typed)
  if (same !== -1) return candidates[same]
  // Containment needs two letters on both sides: one (the `t` of `to`) is in almost every name.
  if (typed.length < 2) return undefined
  const within = known.findIndex((form) => form.length > 1 && (form.includes(typed) || typed.includes(form)))
  return within === -1 ? undefined : candidates[within]
}

/** `; did you mean `payload`?`, or nothing when no candidate is close. */
export function didYouMean(name: string, candidates: readonly string[]): string {
  const meant = closest(name, candidates)
  return meant ? `; did you mean \`${meant}\`?` : ''
}

function skeleton(name: string): string {
  return name
    .toLowerCase()
    .replace(/[-_aeiou]/g, '')
    .replace(/(.)\1/g, '$1')
}
