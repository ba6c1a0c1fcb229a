/**
 * `zod/locales` for the Node build, loaded at its first use: see zod-on-demand.ts.
 * @internal
 */
import type * as ZodLocales from 'zod/locales'
import { requireFromHere } from './zod-on-demand.js'

/** zod's English messages (`en()` of `zod/locales`). */
export function en(): ReturnType<typeof ZodLocales.en> {
  return (requireFromHere('zod/locales') as typeof ZodLocales).en()
}
