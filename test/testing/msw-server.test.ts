import { HttpHandler } from 'msw'
import { createFakeService } from 'notifykit/testing'
import { describe, expect, it } from 'vitest'
import { mswServerSuite, welcomeOptions } from './msw-server-suite.js'

describe("fake.handlers in the user's own msw server", () => {
  // Where require() loads ES modules (Node 20.19+, 22.12+), msw's `module-sync` export gives the kit's
  // require('msw') the same ES module build as your import: one copy of msw.
  it("are made by the same msw as the test's", () => {
    expect(createFakeService().handlers[0]).toBeInstanceOf(HttpHandler)
  })

  mswServerSuite(() => createFakeService(welcomeOptions))
})
