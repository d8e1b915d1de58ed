import { buildSchema, type GraphQLEnumType } from "graphql"
import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { FINAL_STATUSES, isFinal, RUN_STATUSES } from "../../src/domain/RunStatus.js"

describe("a run's status, one list", () => {
  it("GraphQL's RunStatus enum is the domain's list, in its order", () => {
    const schema = buildSchema(readFileSync("schema.graphql", "utf8"))
    const values = (schema.getType("RunStatus") as GraphQLEnumType).getValues().map((v) => v.name)
    expect(values).toEqual([...RUN_STATUSES])
  })
})

describe("the statuses a stored run's row can hold", () => {
  it("are the domain's list but AWAITING_INPUT (read from a waiting request, never stored): the store's constraint says so", () => {
    const migrations = readFileSync("src/store/Migrations.ts", "utf8")
    const check = migrations.match(/status text NOT NULL CHECK \(status IN \(([^)]*)\)\)/)
    expect(check, "the runs table's status constraint").not.toBeNull()
    const stored = check![1]!.split(",").map((s) => s.trim().replace(/'/g, ""))
    expect(stored).toEqual(RUN_STATUSES.filter((s) => s !== "AWAITING_INPUT"))
  })

  it("the final ones are RunFinished's, and a run with one has ended", () => {
    expect(FINAL_STATUSES.every((s) => RUN_STATUSES.includes(s))).toBe(true)
    expect(RUN_STATUSES.filter(isFinal)).toEqual([...FINAL_STATUSES])
    expect(["QUEUED", "RUNNING", "AWAITING_INPUT"].some(isFinal)).toBe(false)
  })
})
