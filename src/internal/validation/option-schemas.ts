import * as z from 'zod/mini'
import { NotifyKitError, type ValidationIssue } from '../../core/errors.js'
import type { LogLevel } from '../../core/logger.js'
import {
  type BulkTriggerOptions,
  type ClientOptions,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_MAX_RETRIES,
  DEFAULT_TIMEOUT_MS,
  type RateLimiter,
  type RequestOptions,
  type ResponseValidation,
  type TriggerStreamOptions,
} from '../../core/options.js'
import { invalidRequestOptions } from '../http/headers.js'
import { didYouMean } from '../text/did-you-mean.js'
import { LOG_LEVELS } from '../text/level-logger.js'
import { deferred } from './deferred.js'
import { failureOf, issuesOf } from './parse.js'
import { isStandardSchema } from './standard-schema.js'

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
const workflowSchemas = deferred(() =>
  z
    .custom<object>((value) => value !== null && typeof value === 'object' && !Array.isArray(value), {
      error: 'The workflows option must map workflow names to payload schemas',
    })
    .check(
      z.superRefine((workflows, context) => {
        for (const [name, schema] of Object.entries(workflows)) {
          if (schema === undefined || isStandardSchema(schema)) continue
          context.addIssue({
            code: 'custom',
            path: [name],
            message: `workflows[${JSON.stringify(name)}] must be a Standard Schema v1 schema (zod 3.24+, zod 4, valibot, arktype, …)`,
          })
        }
      }),
    ),
)

/** What the checked client options are when none of them is given. */
const CLIENT_DEFAULTS: CheckedClientOptions = {
  timeoutMs: DEFAULT_TIMEOUT_MS,
  maxRetries: DEFAULT_MAX_RETRIES,
  maxResponseBytes: DEFAULT_MAX_RESPONSE_BYTES,
  logLevel: 'warn',
  responseValidation: 'lenient',
}

/**
 * The client's options, each message a whole sentence naming the option. `apiKey`, `baseUrl`,
 * `allowInsecureHttp` and `defaultHeaders` have their own checks (headers.ts, base-url.ts), whose
 * messages must never repeat a secret; `workflows` has its own (`workflowSchemas`). Checks only:
 * `checkClientOptions` fills the defaults and reads `logLevel` in any case.
 */
const clientOptionsSchema = deferred(() =>
  z.object({
    timeoutMs: z.optional(
      positiveNumber(`timeoutMs must be a positive number ≤ ${MAX_TIMER_MS}`, MAX_TIMER_MS),
    ),
    maxRetries: z.optional(wholeNumber('maxRetries must be a whole number ≥ 0', 0)),
    maxResponseBytes: z.optional(positiveNumber('maxResponseBytes must be a positive number')),
    logLevel: z.optional(z.enum(LOG_LEVELS, { error: LOG_LEVEL_ERROR })),
    responseValidation: z.optional(
      z.enum(['lenient', 'strict', 'off'], { error: 'responseValidation must be lenient, strict or off' }),
    ),
    fetch: z.optional(
      z.custom((value) => typeof value === 'function', { error: 'fetch must be a function' }),
    ),
    dangerouslyAllowBrowser: z.optional(
      z.boolean({ error: 'dangerouslyAllowBrowser must be true or false' }),
    ),
    rateLimit: z.optional(
      z.custom(
        (value) =>
          value === 'adaptive' ||
          value === 'off' ||
          (typeof value === 'object' &&
            value !== null &&
            typeof (value as RateLimiter).acquire === 'function'),
        { error: 'rateLimit must be adaptive, off, or a rate limiter with an acquire method' },
      ),
    ),
  }),
)

/** The options `clientOptionsSchema` and `workflowSchemas` check, listed so that the usual client skips both. */
const CHECKED_CLIENT_OPTION_KEYS = [
  'timeoutMs',
  'maxRetries',
  'maxResponseBytes',
  'logLevel',
  'responseValidation',
  'fetch',
  'dangerouslyAllowBrowser',
  'workflows',
  'rateLimit',
] as const
// Fails to compile when the schema checks an option the list lacks.
type Unlisted = Exclude<
  keyof z.input<typeof clientOptionsSchema>,
  (typeof CHECKED_CLIENT_OPTION_KEYS)[number]
>
const everyCheckedOptionListed: [Unlisted] extends [never] ? true : Unlisted = true
void everyCheckedOptionListed

/**
 * Every client option, so that one JavaScript (or a cast) misspells is refused instead of silently
 * ignored. Listed as a record of every key: adding an option without listing it does not compile.
 */
const CLIENT_OPTION_KEYS = Object.keys({
  apiKey: 0,
  baseUrl: 0,
  timeoutMs: 0,
  maxRetries: 0,
  dispatcher: 0,
  fetch: 0,
  dangerouslyAllowBrowser: 0,
  defaultHeaders: 0,
  responseValidation: 0,
  logger: 0,
  logLevel: 0,
  logBodies: 0,
  allowInsecureHttp: 0,
  maxResponseBytes: 0,
  hooks: 0,
  workflows: 0,
  rateLimit: 0,
} satisfies Record<keyof ClientOptions | 'workflows', 0>)

const CALL_OPTIONS = {
  idempotencyKey: 0,
  signal: 0,
  timeoutMs: 0,
  deadlineMs: 0,
  maxRetries: 0,
  headers: 0,
  extraFields: 0,
} satisfies Record<keyof RequestOptions, 0>
const CALL_OPTION_KEYS = Object.keys(CALL_OPTIONS)
const BULK_OPTION_KEYS = Object.keys({
  ...CALL_OPTIONS,
  concurrency: 0,
  onProgress: 0,
} satisfies Record<keyof BulkTriggerOptions, 0>)
const STREAM_OPTION_KEYS = Object.keys({
  ...CALL_OPTIONS,
  concurrency: 0,
  startAtChunk: 0,
} satisfies Record<keyof TriggerStreamOptions, 0>)

/** A key of `options` that is no option is refused, naming the option probably meant. */
function unknownOptions(options: object, known: readonly string[]): ValidationIssue[] {
  return Object.keys(options)
    .filter((key) => !known.includes(key))
    .map((key) => ({ path: [key], message: `unknown option${didYouMean(key, known)}` }))
}

/**
 * Refuses a key that is no client option, naming the closest one; before any other check, so that
 * `apikey` is reported as a misspelt `apiKey`, not as a missing key.
 */
export function checkClientOptionKeys(options: object): void {
  const [unknown] = unknownOptions(options, CLIENT_OPTION_KEYS)
  if (unknown) throw new NotifyKitError(`NotificationClient option ${unknown.path[0]}: ${unknown.message}`)
}

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
  const level = options.logLevel ?? environmentLogLevel
  // Any case; an empty value (NOTIFYKIT_LOG set to nothing) means the default.
  const logLevel = typeof level === 'string' ? level.toLowerCase() || undefined : level
  const checked = { ...options, logLevel }
  // The usual client (a key, a URL, perhaps headers) sets none of these: it gets the defaults
  // without the schema being built, which a fresh serverless instance would pay for at its start.
  if (CHECKED_CLIENT_OPTION_KEYS.every((key) => checked[key] === undefined)) return { ...CLIENT_DEFAULTS }
  const failure =
    failureOf(clientOptionsSchema, checked) ??
    (checked.workflows === undefined ? undefined : failureOf(workflowSchemas, checked.workflows))
  if (failure) throw new NotifyKitError(failure.issues[0]?.message ?? 'Invalid client options')
  return {
    timeoutMs: checked.timeoutMs ?? CLIENT_DEFAULTS.timeoutMs,
    maxRetries: checked.maxRetries ?? CLIENT_DEFAULTS.maxRetries,
    maxResponseBytes: checked.maxResponseBytes ?? CLIENT_DEFAULTS.maxResponseBytes,
    logLevel: (checked.logLevel as LogLevel | undefined) ?? CLIENT_DEFAULTS.logLevel,
    responseValidation: checked.responseValidation ?? CLIENT_DEFAULTS.responseValidation,
  }
}

// A `maxRetries` of `NaN` would never stop retrying, and a `timeoutMs` of `NaN` would time every
// attempt out at once.
// Built at the first call with options, not at import: most calls have none.
const milliseconds = deferred(() =>
  positiveNumber(`must be a number of milliseconds > 0 and ≤ ${MAX_TIMER_MS}`, MAX_TIMER_MS),
)

const callOptionsSchema = deferred(() =>
  z.object({
    maxRetries: z.optional(wholeNumber('must be a whole number ≥ 0', 0)),
    timeoutMs: z.optional(milliseconds),
    deadlineMs: z.optional(milliseconds),
  }),
)

const bulkOptionsSchema = deferred(() =>
  z.extend(callOptionsSchema, {
    concurrency: z.optional(wholeNumber('Must be a whole number of at least 1', 1)),
  }),
)

const streamOptionsSchema = deferred(() =>
  z.extend(bulkOptionsSchema, {
    startAtChunk: z.optional(wholeNumber('Must be a whole number ≥ 0', 0)),
  }),
)

/**
 * Refuses a call whose limits cannot work, with one issue per option. `headers` and
 * `idempotencyKey` are checked as the request is built (headers.ts).
 */
export function checkCallOptions(options: RequestOptions): void {
  refuseInvalid(options, callOptionsSchema, CALL_OPTION_KEYS)
}

/** `checkCallOptions`, and the bulk sender's own options. */
export function checkBulkOptions(options: BulkTriggerOptions): void {
  refuseInvalid(options, bulkOptionsSchema, BULK_OPTION_KEYS)
}

/** `checkCallOptions`, and the stream's own options: `concurrency` and `startAtChunk`. */
export function checkStreamOptions(options: TriggerStreamOptions): void {
  refuseInvalid(options, streamOptionsSchema, STREAM_OPTION_KEYS)
}

function refuseInvalid(options: object, schema: z.ZodMiniType, known: readonly string[]): void {
  const failure = failureOf(schema, options)
  const issues = failure ? issuesOf(failure) : []
  // A non-object is the schema's to report; its characters are no options.
  if (options !== null && typeof options === 'object') issues.push(...unknownOptions(options, known))
  if (issues.length > 0) throw invalidRequestOptions(issues)
}
