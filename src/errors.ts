/** getErrorMessage turns anything thrown into a message for a log line. */
export function getErrorMessage(error: unknown): string {
  if (error instanceof Error) return error.message
  if (typeof error === 'string') return error
  try {
    return JSON.stringify(error)
  } catch {
    return String(error)
  }
}

/**
 * UserError is a problem the user fixes in the workflow or the config (a bad
 * input, a refused event). It fails the step with its message alone, no
 * stack trace.
 */
export class UserError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'UserError'
  }
}
