import type { ValidationIssue } from '../../core/errors.js'
import { failureOf, issuesOf } from '../../internal/validation/parse.js'
import type { EventOperations } from './operations.js'

/**
 * The problems of each event as a single trigger would be refused for them, each path starting
 * with the event's position in the caller's source (`firstIndex` is that of `events[0]`).
 * @internal
 */
export function eventIssues(
  operations: EventOperations,
  events: readonly unknown[],
  firstIndex: number,
): ValidationIssue[] {
  const schema = operations.trigger.body
  if (!schema) return []
  const issues: ValidationIssue[] = []
  events.forEach((event, offset) => {
    const failure = failureOf(schema, event)
    if (failure) issues.push(...issuesOf(failure, [firstIndex + offset]))
  })
  return issues
}
