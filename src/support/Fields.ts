/**
 * Reading a value of no known shape — parsed JSON, what a library threw, a client's loose options — a field at a time,
 * each read checked: undefined where the value has no such field (or is no object at all), never a cast. Plain
 * TypeScript: the viewer's bundle reads with it too.
 */
const isObject = (value: unknown): value is { readonly [key: string]: unknown } =>
  typeof value === "object" && value !== null

const isRecord = (value: unknown): value is Record<string, unknown> => isObject(value) && !Array.isArray(value)

export const fieldOf = (value: unknown, key: string): unknown => isObject(value) ? value[key] : undefined

/** A field that is a string, or undefined. */
export const stringField = (value: unknown, key: string): string | undefined => {
  const field = fieldOf(value, key)
  return typeof field === "string" ? field : undefined
}

/** A field that is an object (not an array), or undefined. */
export const recordField = (value: unknown, key: string): Record<string, unknown> | undefined => {
  const field = fieldOf(value, key)
  return isRecord(field) ? field : undefined
}

/** A value as an object's fields, or undefined when it is none (an array, a primitive, null). */
export const recordOf = (value: unknown): Record<string, unknown> | undefined => isRecord(value) ? value : undefined

/** The `code` of what was thrown (a Node errno code, a driver's error code), when it is a string. */
export const codeOf = (thrown: unknown): string | undefined => stringField(thrown, "code")

/** An object's fields that are not undefined (flags a person gave, say), typed as such. */
export const definedOnly = <A>(fields: Readonly<Record<string, A | undefined>>): Record<string, A> =>
  Object.fromEntries(Object.entries(fields).flatMap(([k, v]) => v === undefined ? [] : [[k, v] as const]))

/**
 * A value kept on globalThis under `key`, made once per process: a module evaluated again (a test's fresh module
 * graph) finds the same. `is` checks what is found there.
 */
export const processWide = <A>(key: symbol, is: (found: unknown) => found is A, make: () => A): A => {
  const found: unknown = Reflect.get(globalThis, key)
  if (is(found)) return found
  const made = make()
  Reflect.set(globalThis, key, made)
  return made
}
