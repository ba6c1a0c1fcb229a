/**
 * A response type as the compiler should see it: the fields the schema knows, without the index
 * signature `z.looseObject` adds (`[key: string]: unknown`), which would let a typo such as
 * `result.transactonId` compile as `unknown`. At runtime nothing is removed: results hold every
 * field the server sent; reach one the types do not know with `'field' in result`. A true record
 * (`payload`, `data`: no known keys) keeps its index signature.
 */
export type KnownFields<T> =
  // Primitives first: `string & {}` (an open enum's other values) is an object type to the compiler.
  T extends string | number | boolean | bigint | symbol | null | undefined
    ? T
    : T extends readonly (infer Item)[]
      ? KnownFields<Item>[]
      : T extends object
        ? {
            [Key in keyof T as string extends Key
              ? never
              : number extends Key
                ? never
                : symbol extends Key
                  ? never
                  : Key]: KnownFields<T[Key]>
          } extends infer Known
          ? [keyof Known] extends [never]
            ? { [Key in keyof T]: KnownFields<T[Key]> }
            : Known
          : never
        : T
