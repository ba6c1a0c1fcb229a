import { superRefine } from 'zod/mini'
import { NotifyKitError } from '../../core/errors.js'
import type { Operation } from '../../internal/pipeline/operation.js'
import {
  isStandardSchema,
  type StandardSchemaV1,
  validateSync,
} from '../../internal/validation/standard-schema.js'
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

/**
 * What notifykit reads of a `@novu/framework` workflow, the object `workflow(id, execute, options)`
 * returns: matched by shape, so the package needs no framework at run time nor in its types. The
 * payload type is read from its `trigger`'s event, where the framework put the type it inferred from
 * `payloadSchema` (zod or JSON Schema); the schema itself from what `discover()` resolves to.
 */
export interface FrameworkWorkflow {
  readonly id: string
  readonly discover: () => Promise<unknown>
}

/**
 * The payload a `@novu/framework` workflow takes: the type the framework inferred from its
 * `payloadSchema` (fields with a default optional), or any object for a workflow without one.
 */
export type FrameworkPayload<F> = F extends { trigger: (event: infer Event) => unknown }
  ? Event extends { payload?: infer Payload }
    ? [Exclude<Payload, undefined>] extends [never]
      ? JsonObject
      : Exclude<Payload, undefined>
    : JsonObject
  : never

/**
 * The payload map of `@novu/framework` workflows, keyed by trigger name (each workflow's id), for
 * `NotificationClient<FrameworkWorkflowPayloads<{ welcome: typeof welcome }>>`: types only, nothing
 * checked at run time. {@link frameworkWorkflows} gives the same types and the run-time checks.
 */
export type FrameworkWorkflowPayloads<M> = { [Name in keyof M]: FrameworkPayload<M[Name]> }

/**
 * The `workflows` option for `@novu/framework` workflows: triggers, bulk triggers and streams are
 * typed by each workflow's payload, and the payload is checked before sending wherever the schema
 * can check it (a zod schema, or any Standard Schema). A JSON Schema `payloadSchema` types the
 * payload but is not checked by notifykit: the service accepts the trigger, and your bridge app's
 * framework refuses the payload when the workflow runs.
 *
 * Each key is the trigger name the compiler checks, and must be the workflow's id. The schemas are
 * read with the framework's own `discover()` (which runs no step), hence the promise. The framework
 * is not a dependency of notifykit: the workflows are read by their shape.
 *
 * @example
 * ```ts
 * import { workflow } from '@novu/framework'
 * import { z } from 'zod'
 *
 * const welcome = workflow('welcome', async ({ step }) => {}, { payloadSchema: z.object({ firstName: z.string() }) })
 * const client = new NotificationClient({ workflows: await frameworkWorkflows({ welcome }) })
 * await client.events.trigger({ name: 'welcome', to: 'user-1', payload: { firstName: 'Ada' } })
 * ```
 */
export async function frameworkWorkflows<const M extends Record<string, FrameworkWorkflow>>(
  workflows: M,
): Promise<WorkflowSchemas<FrameworkWorkflowPayloads<M>>> {
  const schemas: Record<string, StandardSchemaV1> = {}
  for (const [name, workflow] of Object.entries(workflows)) {
    if (workflow?.id !== name) {
      const id = typeof workflow?.id === 'string' ? `"${workflow.id}"` : 'no id'
      throw new NotifyKitError(
        `frameworkWorkflows: the key "${name}" holds the workflow ${id}; a trigger names a workflow by its id, so key it by its id`,
      )
    }
    let definition: unknown
    try {
      definition = await workflow.discover()
    } catch (error) {
      throw new NotifyKitError(
        `frameworkWorkflows: the definition of workflow "${name}" could not be read: ${(error as Error)?.message ?? error}`,
        { cause: error },
      )
    }
    const schema = (definition as { payload?: { unknownSchema?: unknown } } | undefined)?.payload
      ?.unknownSchema
    if (isStandardSchema(schema)) schemas[name] = schema
  }
  return schemas as WorkflowSchemas<FrameworkWorkflowPayloads<M>>
}
