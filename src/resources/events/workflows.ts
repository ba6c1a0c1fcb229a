import { superRefine } from 'zod/mini'
import type { Operation } from '../../internal/pipeline/operation.js'
import { type StandardSchemaV1, validateSync } from '../../internal/validation/standard-schema.js'
import type { BroadcastEventRequest, TriggerEventRequest } from '../../schemas/events.js'
import type { JsonObject } from '../../schemas/shared.js'

/**
 * Maps workflow names to the payload each expects. The default accepts any name and any object
 * payload; pass your own map as `NotificationClient<YourWorkflows>` to have the compiler check
 * trigger names and payloads.
 */
export type WorkflowPayloads = Record<string, JsonObject>

/**
 * The same map as schemas, checked at runtime before sending: any Standard Schema v1 (zod 3.24+,
 * zod 4 and zod/mini, valibot, arktype, …). A schema checks the payload and never transforms it: what
 * you pass is what is sent, so the payload's type is the schema's input type. Workflows left out of
 * the map are not checked at runtime.
 */
export type WorkflowSchemas<W extends object> = { [Name in keyof W]?: StandardSchemaV1<W[Name], unknown> }

/** A workflow name of `W`. */
export type WorkflowName<W extends object> = keyof W & string

/** The fields of a trigger other than `name` and `payload`. */
export interface TriggerEventFields extends Omit<TriggerEventRequest, 'name' | 'payload'> {}

/** The fields of a broadcast other than `name` and `payload`. */
export interface BroadcastEventFields extends Omit<BroadcastEventRequest, 'name' | 'payload'> {}

/** `payload` may be left out only when the workflow's payload has no required field. */
type PayloadField<Payload> = Partial<Payload> extends Payload ? { payload?: Payload } : { payload: Payload }

/**
 * Parameters of `events.trigger` (and each event of `triggerBulk`), checked against `W`: for the
 * workflow `Name`, or for any workflow of `W` by default (a union discriminated by `name`).
 */
export type TriggerEventParams<
  W extends object = WorkflowPayloads,
  Name extends WorkflowName<W> = WorkflowName<W>,
> = Name extends unknown ? TriggerEventFields & { name: Name } & PayloadField<W[Name]> : never

/** Parameters of `events.broadcast`, checked against `W`: for the workflow `Name`, or for any. */
export type BroadcastEventParams<
  W extends object = WorkflowPayloads,
  Name extends WorkflowName<W> = WorkflowName<W>,
> = Name extends unknown ? BroadcastEventFields & { name: Name; payload: W[Name] } : never

/**
 * What the methods accept for an event whose name the compiler sees as `Name`: that workflow's
 * event, so a wrong payload is reported against that workflow's payload type alone. A name that is
 * not a workflow (a typo, or a `name` widened to `string` in an object built apart from the call)
 * is reported against the list of names.
 */
export type CheckedTrigger<W extends object, Name extends string> =
  Name extends WorkflowName<W> ? TriggerEventParams<W, Name> : TriggerEventFields & { name: keyof W & string }

/** As `CheckedTrigger`, for broadcasts. */
export type CheckedBroadcast<W extends object, Name extends string> =
  Name extends WorkflowName<W>
    ? BroadcastEventParams<W, Name>
    : BroadcastEventFields & { name: keyof W & string }

interface NamedEvent {
  name: string
  payload?: unknown
}

/**
 * The operation with its body schema extended by the workflows' payload schemas, so that a payload
 * is refused with the same `RequestValidationError`, paths and all, as any other request problem.
 * `eventsOf` says where the events sit in the body (the body itself, or its `events` list).
 */
export function withPayloadCheck<Body, Result>(
  operation: Operation<Body, Result>,
  schemas: Readonly<Record<string, StandardSchemaV1>>,
  eventsOf: (body: Body) => readonly { event: NamedEvent; path: (string | number)[] }[],
): Operation<Body, Result> {
  const body = operation.body
  if (!body) return operation
  const checked = body.check(
    superRefine((value, context) => {
      for (const { event, path } of eventsOf(value)) {
        const schema = Object.hasOwn(schemas, event.name) ? schemas[event.name] : undefined
        if (!schema) continue
        for (const issue of validateSync(schema, event.payload)) {
          context.addIssue({
            code: 'custom',
            message: `${issue.message} (workflow ${JSON.stringify(event.name)})`,
            path: [...path, 'payload', ...issue.path],
          })
        }
      }
    }),
  )
  return { ...operation, body: checked }
}
