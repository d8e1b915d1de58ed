import { Predicate } from "effect"

/**
 * A JSON value with every object's keys in one order (sorted), at any depth: two values equal but for their keys'
 * order (a plan written again, a store's jsonb) become the same text once stringified.
 */
export const sortedKeys = (v: unknown): unknown =>
  Array.isArray(v)
    ? v.map(sortedKeys)
    : Predicate.isRecord(v)
    ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortedKeys(v[k])]))
    : v
