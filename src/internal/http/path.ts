import { RequestValidationError } from '../../core/errors.js'

/**
 * A path such as `/v1/notifications/{notificationId}`, split once at module load so that building a
 * path per call is a join, not a parse.
 */
export interface PathTemplate {
  readonly template: string
  readonly literals: readonly string[]
  readonly params: readonly string[]
}

export function pathTemplate(template: string): PathTemplate {
  const literals: string[] = []
  const params: string[] = []
  let rest = template
  for (let match = /\{(\w+)\}/.exec(rest); match; match = /\{(\w+)\}/.exec(rest)) {
    literals.push(rest.slice(0, match.index))
    params.push(match[1] as string)
    rest = rest.slice(match.index + match[0].length)
  }
  literals.push(rest)
  return { template, literals, params }
}

/** Fills a template; every value goes through `encodePathSegment`. */
export function buildPath(path: PathTemplate, values: Readonly<Record<string, unknown>>): string {
  let result = path.literals[0] as string
  for (let i = 0; i < path.params.length; i++) {
    const name = path.params[i] as string
    result += encodePathSegment(name, values[name]) + path.literals[i + 1]
  }
  return result
}

/**
 * The one place a user-supplied value becomes part of a path. It must arrive as exactly one segment
 * of the intended route, so: every reserved character is percent-encoded (`/`, `?`, `#`, `%` too, so
 * nothing is decoded twice), and the values that URL parsers would treat as navigation (`.` and `..`,
 * even percent-encoded) or that cannot be encoded (lone surrogates) are refused before sending.
 */
function encodePathSegment(name: string, value: unknown): string {
  if (typeof value !== 'string') throw invalid(name, `Expected a string, received ${describe(value)}`)
  if (value === '') throw invalid(name, 'Must not be empty')
  if (value === '.' || value === '..') throw invalid(name, `"${value}" cannot be sent as a path segment`)
  // Ids are nearly always plain: those go as they are, without the encoder and its replace callback.
  if (UNRESERVED.test(value)) return value
  if (!value.isWellFormed()) throw invalid(name, 'Contains a lone surrogate, which cannot be encoded')
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  )
}

/** RFC 3986's unreserved characters: the ones a path segment carries unencoded. */
const UNRESERVED = /^[\w.~-]+$/

function invalid(name: string, message: string): RequestValidationError {
  return new RequestValidationError([{ path: [name], message }])
}

function describe(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value
}
