import { createRequire } from 'node:module'
import type * as Msw from 'msw'
import { NotifyKitError } from '../core/errors.js'

let msw: typeof Msw | undefined

/**
 * msw, loaded the first time a feature built on it is used: it is an optional peer dependency, and
 * `import 'notifykit/testing'` must work without it. Loaded synchronously through Node's `require`
 * because `fake.handlers` is a getter; handlers made by this copy run in your own msw server too,
 * whichever build of msw you imported, as msw only calls their methods.
 *
 * @param feature What needs msw, named in the error when msw is missing.
 */
export function loadMsw(feature: string): typeof Msw {
  msw ??= requireMsw(feature)
  return msw
}

function requireMsw(feature: string): typeof Msw {
  try {
    return createRequire(import.meta.url)('msw') as typeof Msw
  } catch (error) {
    const { code, message } = error as { code?: unknown; message?: unknown }
    if (code === 'MODULE_NOT_FOUND' && typeof message === 'string' && message.includes("'msw'")) {
      throw new NotifyKitError(`${feature} needs the msw package: npm install --save-dev msw`, {
        cause: error,
      })
    }
    if (code === 'ERR_REQUIRE_ESM') {
      throw new NotifyKitError(
        `${feature} loads msw's CommonJS build, which requires ES modules: that needs Node 20.19+ or 22.12+`,
        { cause: error },
      )
    }
    throw error
  }
}
