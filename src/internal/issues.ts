import type { core } from 'zod/mini'

/**
 * A problem and where it is: the shape of the public `ValidationIssue`, spelled out here because the
 * error classes format their issues with this module and it must not import from theirs.
 */
interface Issue {
  path: (string | number)[]
  message: string
}

/**
 * zod's issues as the SDK reports them, under `prefix`; symbol keys (never in JSON) dropped. A value
 * that matched no member of a union is explained by the member it came closest to (see `explain`).
 */
export function issuesOf(error: core.$ZodError, prefix: readonly (string | number)[] = []): Issue[] {
  return error.issues.flatMap((issue) => explain(issue, prefix))
}

type ZodIssue = core.$ZodIssue

/**
 * zod reports a value that no member of a union accepts as one `Invalid input`, with each member's
 * own issues kept aside. Those of the member the value has the shape of say which rule it broke
 * (`to.type: must be 'Topic'`; `to: at most 100 recipients, got 101`), so they are reported instead,
 * those of the member with the fewest issues when several have its shape. A value of no member's
 * shape keeps the union's own message, which lists the shapes accepted.
 */
function explain(issue: ZodIssue, prefix: readonly (string | number)[]): Issue[] {
  const path = [...prefix, ...issue.path.filter((key): key is string | number => typeof key !== 'symbol')]
  if (issue.code === 'invalid_union') {
    let closest: ZodIssue[] | undefined
    for (const member of issue.errors) {
      if (isWrongShape(member)) continue
      if (!closest || member.length < closest.length) closest = member
    }
    if (closest) return closest.flatMap((memberIssue) => explain(memberIssue, path))
  }
  return [{ path, message: issue.message }]
}

/** The value is not of the member's kind at all (not a string, not an array…). */
function isWrongShape(issues: readonly ZodIssue[]): boolean {
  return issues.some(
    (issue) =>
      issue.path.length === 0 &&
      (issue.code === 'invalid_type' || (issue.code === 'invalid_union' && issue.errors.every(isWrongShape))),
  )
}

/** `schedule.weeklySchedule.monday: Must be …; to: Required`: each at its path, or alone at the top level. */
export function formatIssues(issues: readonly Issue[]): string {
  return issues
    .map((issue) => (issue.path.length ? `${issue.path.join('.')}: ${issue.message}` : issue.message))
    .join('; ')
}
