/** Whether a string is one of a list's literals: the list's type for it when it is (no cast at the caller). */
export const isOneOf = <const T extends string>(values: ReadonlyArray<T>, value: string): value is T =>
  values.some((v) => v === value)
