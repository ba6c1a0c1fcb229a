/**
 * A schema built the first time it is used rather than when the package is imported. Building
 * every table's schema at import was most of the package's own start-up cost, paid by every fresh
 * serverless instance, while a function calls one or two operations. What is exported is a
 * transparent stand-in: every read, call, `in`, key listing and `instanceof` reaches the schema,
 * built then, so it parses, composes into the application's own schemas and infers types as the
 * schema itself does.
 * @internal
 */
export function deferred<Schema extends object>(build: () => Schema): Schema {
  let schema: Schema | undefined
  const built = (): Schema => {
    schema ??= build()
    return schema
  }
  return new Proxy({} as Schema, {
    get: (_, key) => Reflect.get(built(), key),
    set: (_, key, value) => Reflect.set(built(), key, value),
    has: (_, key) => Reflect.has(built(), key),
    deleteProperty: (_, key) => Reflect.deleteProperty(built(), key),
    ownKeys: () => Reflect.ownKeys(built()),
    getOwnPropertyDescriptor: (_, key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(built(), key)
      // A proxy may not report a property its empty target lacks as non-configurable.
      return descriptor && { ...descriptor, configurable: true }
    },
    defineProperty: (_, key, descriptor) => Reflect.defineProperty(built(), key, descriptor),
    getPrototypeOf: () => Reflect.getPrototypeOf(built()),
  })
}
