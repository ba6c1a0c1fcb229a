/** `connect ECONNREFUSED 127.0.0.1:9 (ECONNREFUSED)`: an error's message, with its code where it has one. */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error)
  const code = (error as { code?: unknown }).code
  return typeof code === 'string' ? `${error.message} (${code})` : error.message
}
