import { en } from 'zod/locales'
import { config, type core } from 'zod/mini'

const english = en().localeError

/**
 * The parse parameters for every check the SDK makes with its own schemas. zod/mini loads no locale,
 * so a message a schema does not spell out itself would read "Invalid input"; this gives zod's
 * English text instead (as classic zod, which registers English at its first schema, did). A map or
 * locale the application set with `z.config()` is read at each issue and still wins: it is never
 * changed here.
 */
export const PARSE_PARAMS: core.ParseContext<core.$ZodIssue> = {
  error: (issue) => {
    const global = config()
    return global.customError?.(issue) ?? global.localeError?.(issue) ?? english(issue)
  },
}
