/**
 * A response type as the compiler should see it: the fields the schema knows, without the index
 * signature `z.looseObject` adds (`[key: string]: unknown`), which would let a typo such as
 * `result.transactonId` compile as `unknown`. At runtime nothing is removed: results hold every
 * field the server sent. A true record (`payload`, `data`: no known keys) keeps its index signature.
 */
export type KnownFields<T> = T extends Primitive
  ? T
  : T extends readonly (infer Item)[]
    ? KnownFields<Item>[]
    : T extends object
      ? [KnownKeys<T>] extends [never]
        ? { [Key in keyof T]: KnownFields<T[Key]> }
        : { [Key in keyof T as Key extends KnownKeys<T> ? Key : never]: KnownFields<T[Key]> }
      : T

// `string & {}` (an open enum's other values) is an object type to the compiler: leave it whole.
type Primitive = string | number | boolean | bigint | symbol | null | undefined

/** The keys of `T` other than its index signatures. */
type KnownKeys<T> = keyof {
  [Key in keyof T as string extends Key
    ? never
    : number extends Key
      ? never
      : symbol extends Key
        ? never
        : Key]: 0
}
