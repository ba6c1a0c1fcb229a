import * as z from 'zod/mini'
import { NotifyKitError, RequestValidationError, type ValidationIssue } from '../core/errors.js'
import type { LogLevel } from '../core/logger.js'
import {
  type ClientOptions,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_MAX_RETRIES,
  DEFAULT_TIMEOUT_MS,
  type RequestOptions,
  type ResponseValidation,
} from '../core/options.js'
import { issuesOf } from './issues.js'
import { LOG_LEVELS } from './logger.js'
import { safeParse } from './safe-parse.js'

// The rules for the options of a client and of a call. A client option that breaks one is a
// configuration error, thrown by the constructor; a call option, a refusal before anything is sent.

// setTimeout fires at once for anything longer (with a warning), which would turn a huge bound into none.
const MAX_TIMER_MS = 2_147_483_647

/** A number in (0, max]; every way of breaking the rule gives the one `error`. */
function positiveNumber(error: string, max = Number.MAX_SAFE_INTEGER) {
  return z.number({ error }).check(z.positive({ error }), z.maximum(max, { error }))
}

/** A whole number ≥ min; every way of breaking the rule gives the one `error`, once. */
function wholeNumber(error: string, min: number) {
  return z.number({ error }).check(z.int({ error, abort: true }), z.minimum(min, { error }))
}

const LOG_LEVEL_ERROR = `logLevel (or NOTIFYKIT_LOG) must be one of ${LOG_LEVELS.join(', ')}`

/**
 * The payload schemas of `NotificationClientOptions.workflows`. Checked by hand rather than with
 * `z.record`, which skips a key named `__proto__`: a workflow may have that name.
 */
const workflowSchemas = z
  .custom<object>((value) => value !== null && typeof value === 'object' && !Array.isArray(value), {
    error: 'The workflows option must map workflow names to zod schemas',
  })
  .check(
    z.superRefine((workflows, context) => {
      for (const [name, schema] of Object.entries(workflows)) {
        if (
          schema === undefined ||
          typeof (schema as { safeParse?: unknown } | null)?.safeParse === 'function'
        )
          continue
        context.addIssue({
          code: 'custom',
          path: [name],
          message: `workflows[${JSON.stringify(name)}] must be a zod schema`,
        })
      }
    }),
  )

/**
 * The client's options, each message a whole sentence naming the option. `apiKey`, `baseUrl`,
 * `allowInsecureHttp` and `defaultHeaders` have their own checks (headers.ts, base-url.ts), whose
 * messages must never repeat a secret.
 */
const clientOptionsSchema = z.object({
  timeoutMs: z._default(
    positiveNumber(`timeoutMs must be a positive number ≤ ${MAX_TIMER_MS}`, MAX_TIMER_MS),
    DEFAULT_TIMEOUT_MS,
  ),
  maxRetries: z._default(wholeNumber('maxRetries must be a whole number ≥ 0', 0), DEFAULT_MAX_RETRIES),
  maxResponseBytes: z._default(
    positiveNumber('maxResponseBytes must be a positive number'),
    DEFAULT_MAX_RESPONSE_BYTES,
  ),
  // Any case; an empty value (NOTIFYKIT_LOG set to nothing) means the default.
  logLevel: z._default(
    z.pipe(
      z.pipe(
        z.string({ error: LOG_LEVEL_ERROR }),
        z.transform((level: string) => level.toLowerCase() || 'warn'),
      ),
      z.enum(LOG_LEVELS, { error: LOG_LEVEL_ERROR }),
    ),
    'warn',
  ),
  responseValidation: z._default(
    z.enum(['lenient', 'strict', 'off'], { error: 'responseValidation must be lenient, strict or off' }),
    'lenient',
  ),
  fetch: z.optional(z.custom((value) => typeof value === 'function', { error: 'fetch must be a function' })),
  dangerouslyAllowBrowser: z.optional(z.boolean({ error: 'dangerouslyAllowBrowser must be true or false' })),
  workflows: z.optional(workflowSchemas),
})

/** The client options that the client's settings take as checked here, defaults filled in. */
interface CheckedClientOptions {
  timeoutMs: number
  maxRetries: number
  maxResponseBytes: number
  logLevel: LogLevel
  responseValidation: ResponseValidation
}

/**
 * Throws the configuration error for the first option that breaks its rule. `environmentLogLevel`
 * (NOTIFYKIT_LOG) applies when the `logLevel` option is not set.
 */
export function checkClientOptions(
  options: ClientOptions & { workflows?: unknown },
  environmentLogLevel: string | undefined,
): CheckedClientOptions {
  const parsed = safeParse(clientOptionsSchema, {
    ...options,
    logLevel: options.logLevel ?? environmentLogLevel,
  })
  if (!parsed.success) throw new NotifyKitError(parsed.error.issues[0]?.message ?? 'Invalid client options')
  const { timeoutMs, maxRetries, maxResponseBytes, logLevel, responseValidation } = parsed.data
  return { timeoutMs, maxRetries, maxResponseBytes, logLevel, responseValidation }
}

// A `maxRetries` of `NaN` would never stop retrying, and a `timeoutMs` of `NaN` would time every
// attempt out at once.
const milliseconds = positiveNumber(
  `must be a number of milliseconds > 0 and ≤ ${MAX_TIMER_MS}`,
  MAX_TIMER_MS,
)

const callOptionsSchema = z.object({
  maxRetries: z.optional(wholeNumber('must be a whole number ≥ 0', 0)),
  timeoutMs: z.optional(milliseconds),
  deadlineMs: z.optional(milliseconds),
})

const bulkOptionsSchema = z.extend(callOptionsSchema, {
  concurrency: z.optional(wholeNumber('Must be a whole number of at least 1', 1)),
})

/**
 * Refuses a call whose limits cannot work, with one issue per option. `headers` and
 * `idempotencyKey` are checked as the request is built (headers.ts).
 */
export function checkCallOptions(options: RequestOptions): void {
  const parsed = safeParse(callOptionsSchema, options)
  if (!parsed.success) throw invalidRequestOptions(issuesOf(parsed.error))
}

/** `checkCallOptions`, and the bulk sender's `concurrency`. */
export function checkBulkOptions(options: RequestOptions & { concurrency?: number }): void {
  const parsed = safeParse(bulkOptionsSchema, options)
  if (!parsed.success) throw invalidRequestOptions(issuesOf(parsed.error))
}

/** The refusal of a call's options, whichever check found the problems. */
export function invalidRequestOptions(issues: ValidationIssue[]): RequestValidationError {
  return new RequestValidationError(issues, 'Invalid request options')
}
