import { Effect } from "effect"
import type { Service, StoredAgent } from "../store/AgentStore.js"

/** Agents' versions kept in memory (the library without a database): the store's rules, for one process. */
export const memoryStore = (): Service => {
  const rows: Array<StoredAgent> = []
  const of = (owner: string, name: string) => rows.filter((r) => r.owner === owner && r.name === name)
  return {
    save: (owner, name, definition, options = {}) =>
      Effect.sync(() => {
        const last = of(owner, name).at(-1)
        if (options.ifChanged && last && JSON.stringify(last.definition) === JSON.stringify(definition)) return last
        const row = { owner, name, version: (last?.version ?? 0) + 1, definition, createdAt: new Date() }
        rows.push(row)
        return row
      }),
    versions: (owner, name) => Effect.sync(() => of(owner, name)),
    latest: (owners) =>
      Effect.sync(() =>
        rows.filter((r) => owners.includes(r.owner) && of(r.owner, r.name).at(-1) === r)
          .sort((a, b) => a.name.localeCompare(b.name) || a.owner.localeCompare(b.owner))
      ),
    remove: (owner, name) =>
      Effect.sync(() => {
        const before = rows.length
        for (let i = rows.length - 1; i >= 0; i--) {
          if (rows[i]!.owner === owner && rows[i]!.name === name) rows.splice(i, 1)
        }
        return rows.length < before
      })
  }
}
