import type { core } from 'zod/mini'

/**
 * A problem and where it is: the shape of the public `ValidationIssue`, spelled out here because the
 * error classes format their issues with this module and it must not import from theirs.
 */
interface Issue {
  path: (string | number)[]
  message: string
}

/** zod's issues as the SDK reports them, under `prefix`; symbol keys (never in JSON) dropped. */
export function issuesOf(error: core.$ZodError, prefix: readonly (string | number)[] = []): Issue[] {
  return error.issues.map((issue) => ({
    path: [...prefix, ...issue.path.filter((key): key is string | number => typeof key !== 'symbol')],
    message: issue.message,
  }))
}

/** `schedule.weeklySchedule.monday: Must be …; to: Required`: each at its path, or alone at the top level. */
export function formatIssues(issues: readonly Issue[]): string {
  return issues
    .map((issue) => (issue.path.length ? `${issue.path.join('.')}: ${issue.message}` : issue.message))
    .join('; ')
}
