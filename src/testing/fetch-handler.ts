/**
 * Answers one Fetch `Request`: the contract between the fake (or msw's handlers) and the ways a
 * client reaches it (`fake.fetch`, an undici dispatcher, a node:http server). `undefined` means "no
 * route": the request fails loudly instead of getting an invented response. `Response.error()`
 * stands for a dropped connection.
 */
export type FetchHandler = (request: Request) => Response | undefined | Promise<Response | undefined>
