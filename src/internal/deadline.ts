import { TimeoutError } from '../core/errors.js'

/**
 * The whole call ran past its `deadlineMs`. `cause` is the failure of the last attempt, if any;
 * `notSent` says the request never went out (a bulk request whose turn came after the deadline).
 */
export function deadlineError(
  deadlineMs: number | undefined,
  { cause, notSent = false }: { cause?: unknown; notSent?: boolean } = {},
): TimeoutError {
  const when = notSent ? ' before this request was sent' : ''
  return new TimeoutError(`The call ran past its deadline of ${deadlineMs} ms${when}`, { cause })
}
