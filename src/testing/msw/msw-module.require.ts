import { createRequire } from 'node:module'
import type * as Msw from 'msw'
import { NotifyKitError } from '../../core/errors.js'

// The CommonJS build's msw-module.ts (tsup.config.ts): the same export, required. msw's CommonJS
// build requires an ES module (rettime), which `require()` loads from Node 20.19 and 22.12 on; on an
// older Node, and where msw is missing, the error says what to do instead of pointing into msw.

const ENTRY = 'notifykit/testing/msw'

function requireMsw(): typeof Msw {
  try {
    return createRequire(import.meta.url)('msw') as typeof Msw
  } catch (error) {
    const { code, message } = error as { code?: unknown; message?: unknown }
    if (code === 'MODULE_NOT_FOUND' && typeof message === 'string' && message.includes("'msw'")) {
      throw new NotifyKitError(`${ENTRY} needs the msw package: npm install --save-dev msw`, {
        cause: error,
      })
    }
    if (code === 'ERR_REQUIRE_ESM') {
      throw new NotifyKitError(
        `${ENTRY}, required from CommonJS, loads msw's CommonJS build, which requires ES modules: that needs Node 20.19+ or 22.12+ (or import ${ENTRY} from an ES module)`,
        { cause: error },
      )
    }
    throw error
  }
}

export const msw: typeof Msw = requireMsw()
