import { RequestValidationError } from '../../core/errors.js'

/**
 * A checked query object as the server's query parser reads it back: `?` and the fields in order,
 * an array as its key repeated (`channels=sms&channels=email`, which the server reads as a list even
 * with one entry), an empty array as the key with an empty value (`contextKeys=`, which the server
 * reads as "none"; for its other lists, as no filter), `undefined` left out. Keys and values are
 * percent-encoded, so a value cannot start another field. `''` when nothing is left.
 */
export function encodeQuery(query: Readonly<Record<string, unknown>>): string {
  let result = ''
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue
    const name = encodeURIComponent(key)
    if (Array.isArray(value)) {
      if (value.length === 0) result += `&${name}=`
      for (const item of value) result += `&${name}=${encodeValue(key, item)}`
    } else {
      result += `&${name}=${encodeValue(key, value)}`
    }
  }
  return result === '' ? '' : `?${result.slice(1)}`
}

function encodeValue(key: string, value: unknown): string {
  if (typeof value === 'string') {
    if (!value.isWellFormed()) throw invalid(key, 'Contains a lone surrogate, which cannot be encoded')
    return encodeURIComponent(value)
  }
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  // Only `extraFields` can bring one: the checked fields are strings, numbers and lists of them.
  throw invalid(key, 'cannot be sent in a query string: expected a string, number, boolean or a list of them')
}

function invalid(key: string, message: string): RequestValidationError {
  return new RequestValidationError([{ path: [key], message }])
}
