import type { z } from 'zod'
import { type core, superRefine } from 'zod/mini'
import type { Operation } from '../../internal/operation.js'
import { safeParse } from '../../internal/safe-parse.js'
import type { BroadcastEventRequest, TriggerEventRequest } from '../../schemas/events.js'
import type { JsonObject } from '../../schemas/shared.js'

/**
 * Maps workflow names to the payload each expects. The default accepts any name and any object
 * payload; pass your own map as `NotificationClient<YourWorkflows>` to have the compiler check
 * trigger names and payloads.
 */
export type WorkflowPayloads = Record<string, JsonObject>

/**
 * The same map as zod schemas, checked at runtime before sending. A schema checks the payload and
 * never transforms it: what you pass is what is sent, so the payload's type is the schema's input
 * type. Workflows left out of the map are not checked at runtime.
 */
export type WorkflowSchemas<W extends object> = { [Name in keyof W]?: z.ZodType<unknown, W[Name]> }

/** `payload` may be left out only when the workflow's payload has no required field. */
type PayloadField<Payload> = Partial<Payload> extends Payload ? { payload?: Payload } : { payload: Payload }

type WorkflowName<W extends object> = keyof W & string

/** Parameters of `events.trigger` (and each event of `triggerBulk`), checked against `W`. */
export type TriggerEventParams<W extends object = WorkflowPayloads> = {
  [Name in WorkflowName<W>]: Omit<TriggerEventRequest, 'name' | 'payload'> & { name: Name } & PayloadField<
      W[Name]
    >
}[WorkflowName<W>]

/** Parameters of `events.broadcast`, checked against `W`. */
export type BroadcastEventParams<W extends object = WorkflowPayloads> = {
  [Name in WorkflowName<W>]: Omit<BroadcastEventRequest, 'name' | 'payload'> & {
    name: Name
    payload: W[Name]
  }
}[WorkflowName<W>]

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
  schemas: Readonly<Record<string, z.ZodType>>,
  eventsOf: (body: Body) => readonly { event: NamedEvent; path: (string | number)[] }[],
): Operation<Body, Result> {
  const body = operation.body
  if (!body) return operation
  const checkPayloads = (value: Body, context: core.$RefinementCtx<Body>) => {
    for (const { event, path } of eventsOf(value)) {
      const schema = Object.hasOwn(schemas, event.name) ? schemas[event.name] : undefined
      if (!schema) continue
      let result: ReturnType<z.ZodType['safeParse']>
      try {
        result = safeParse(schema, event.payload)
      } catch (error) {
        // An async refinement, or a refinement that throws: still a refusal, not a crash.
        context.addIssue({
          code: 'custom',
          message: `the payload schema could not check it: ${error instanceof Error ? error.message : String(error)}`,
          path: [...path, 'payload'],
        })
        continue
      }
      if (result.success) continue
      for (const issue of result.error.issues) {
        context.addIssue({
          code: 'custom',
          message: issue.message,
          path: [...path, 'payload', ...issue.path],
        })
      }
    }
  }
  const checked = body.check(superRefine(checkPayloads))
  return { ...operation, body: checked }
}
