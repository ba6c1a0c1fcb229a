import { HttpHandler } from 'msw'
import { createFakeService } from 'notifykit/testing'
import { fakeHandlers } from 'notifykit/testing/msw'
import { describe, expect, it } from 'vitest'
import { mswServerSuite, welcomeOptions } from './msw-server-suite.js'

describe("fakeHandlers(fake) in the user's own msw server", () => {
  // notifykit/testing/msw imports msw as the test does, as an ES module: one copy of msw.
  it("are made by the same msw as the test's", () => {
    expect(fakeHandlers(createFakeService())[0]).toBeInstanceOf(HttpHandler)
  })

  mswServerSuite(() => createFakeService(welcomeOptions))
})
