export {
  type BroadcastEventOf,
  NotificationClient,
  type NotificationClientOptions,
  type TriggerEventOf,
  type WorkflowPayloadsOf,
} from './client.js'
export { ApiPromise, type ResponseInfo, type WithResponse } from './core/api-promise.js'
export {
  AbortError,
  ApiError,
  type ApiErrorCode,
  type ApiIssue,
  AuthenticationError,
  BadRequestError,
  type BulkChunkFailure,
  BulkTriggerError,
  ClientClosedError,
  ConflictError,
  ConnectionError,
  type ErrorCode,
  type FailedEvent,
  IdempotencyReplayError,
  InternalServerError,
  NotFoundError,
  NotifyKitError,
  PermissionDeniedError,
  RateLimitError,
  RequestValidationError,
  type ResponseHeaders,
  ResponseTooLargeError,
  ResponseValidationError,
  TimeoutError,
  TriggerNotSentError,
  UnprocessableEntityError,
  type ValidationIssue,
} from './core/errors.js'
export type {
  AttemptInfo,
  CallEndInfo,
  CallInfo,
  NotifyKitHooks,
  RetryInfo,
} from './core/hooks.js'
export type { LogFields, Logger, LogLevel } from './core/logger.js'
export { NOVU_CLOUD_BASE_URLS } from './core/novu-cloud.js'
export type {
  BulkProgress,
  BulkTriggerOptions,
  ClientOptions,
  FetchFunction,
  FetchRequestInit,
  FetchResponse,
  RateLimitAnswer,
  RateLimiter,
  RateLimitMode,
  RateLimitRequest,
  RequestOptions,
  ResponseValidation,
  TriggerStreamOptions,
} from './core/options.js'
export { Page, type PageBody, PagePromise } from './core/pagination.js'
export type { EventIterable } from './resources/events/event-source.js'
export type { Events } from './resources/events/events.js'
export type { BulkChunkApplied, BulkChunkFailed, BulkChunkOutcome } from './resources/events/stream.js'
export type {
  BroadcastEventFields,
  BroadcastEventParams,
  FrameworkPayload,
  FrameworkWorkflow,
  FrameworkWorkflowPayloads,
  TriggerEventFields,
  TriggerEventParams,
  WorkflowPayloads,
  WorkflowSchemas,
} from './resources/events/workflows.js'
export { frameworkWorkflows } from './resources/events/workflows.js'
export type { Notifications } from './resources/notifications.js'
export type { SubscriberMessages, SubscriberPreferences, Subscribers } from './resources/subscribers.js'
export * from './schemas/index.js'
export type { KnownFields } from './schemas/known-fields.js'
export { VERSION } from './version.js'
