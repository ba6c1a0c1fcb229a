/**
 * How much of a server's text an error message quotes: enough for the server's own words, while a
 * whole HTML error page stays out of the message (the error's `body` keeps all of it).
 */
const MAX_EXCERPT_CHARS = 300

/** The text as an error message quotes it: cut with a note of how much was left out. */
export function excerpt(text: string): string {
  return text.length <= MAX_EXCERPT_CHARS
    ? text
    : `${text.slice(0, MAX_EXCERPT_CHARS)}… (${text.length - MAX_EXCERPT_CHARS} more characters)`
}
