import { en } from 'zod/locales'
import { config, type core } from 'zod/mini'
import { conforms } from './conforms.js'

/** zod's English, built at the first refusal rather than at import. */
let english: ReturnType<typeof en>['localeError'] | undefined

/**
 * zod/mini loads no locale, so without one a message a schema does not spell out itself reads
 * "Invalid input". This map gives zod's English instead (as classic zod, which registers English at
 * its first schema, did). The application's own map and locale (`z.config()`) are read at each issue
 * and still win: they are never changed here.
 */
const ENGLISH_UNLESS_CONFIGURED: core.ParseContext<core.$ZodIssue> = {
  error: (issue) => {
    const global = config()
    english ??= en().localeError
    return global.customError?.(issue) ?? global.localeError?.(issue) ?? english(issue)
  },
}

export interface Parsable {
  safeParse(value: unknown, params?: core.ParseContext<core.$ZodIssue>): { success: boolean }
}

/**
 * `schema.safeParse(value)`, its issues in zod's English when the application loaded no locale.
 * Parse parameters cost a few µs on every parse (zod copies them into each parse's context: about
 * 4 µs on a trigger's check, four times the check itself), so only a parse that failed while no
 * locale is loaded runs again with them; with a locale loaded, the messages are already the ones
 * the parameters would give.
 */
export function safeParse<Schema extends Parsable>(
  schema: Schema,
  value: unknown,
): ReturnType<Schema['safeParse']> {
  const result = schema.safeParse(value)
  if (result.success || config().localeError) return result as ReturnType<Schema['safeParse']>
  return schema.safeParse(value, ENGLISH_UNLESS_CONFIGURED) as ReturnType<Schema['safeParse']>
}

/**
 * The error of a value `schema` refuses (as `safeParse` gives it), or `undefined` when it passes.
 * A value that passes is let through without zod's parse and its copy (see conforms.ts); only a
 * refused one is parsed, for its issues.
 */
export function failureOf(schema: core.$ZodType & Parsable, value: unknown): core.$ZodError | undefined {
  if (conforms(schema, value)) return undefined
  const parsed = safeParse(schema, value) as { success: boolean; error?: core.$ZodError }
  return parsed.success ? undefined : parsed.error
}
