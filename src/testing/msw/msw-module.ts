// msw, as notifykit/testing/msw uses it: imported as any ES module imports msw. The CommonJS build
// loads its sibling msw-module.require.ts in place of this module (tsup.config.ts).
import * as msw from 'msw'

export { msw }
