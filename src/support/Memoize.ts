/**
 * Remembers a pure function of a string for texts that recur (prompts, step descriptions validated again on
 * every pass). Bounded: past `limit` entries it forgets everything; keys longer than `maxKeyLength` are
 * computed each time and not kept.
 */
export const memoize = <A>(
  f: (key: string) => A,
  options: { readonly limit?: number; readonly maxKeyLength?: number } = {}
) => {
  const limit = options.limit ?? 5_000
  const maxKeyLength = options.maxKeyLength ?? Number.POSITIVE_INFINITY
  const cache = new Map<string, A>()
  return (key: string): A => {
    if (key.length > maxKeyLength) return f(key)
    let value = cache.get(key)
    if (value === undefined) {
      if (cache.size >= limit) cache.clear()
      cache.set(key, value = f(key))
    }
    return value
  }
}

/**
 * Remembers a function of an object for as long as the object lives (a WeakMap: nothing kept past it). For values made
 * once per object and shared: an event's view for all its subscribers, a tool's words, a pool's semaphore.
 */
export const memoizeWeak = <K extends object, A>(f: (key: K) => A) => {
  const cache = new WeakMap<K, A>()
  return (key: K): A => {
    let value = cache.get(key)
    if (value === undefined) cache.set(key, value = f(key))
    return value
  }
}
