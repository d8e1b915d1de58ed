import { buildSchema, type GraphQLEnumType } from "graphql"
import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { RUN_STATUSES } from "../../src/domain/RunStatus.js"

describe("a run's status, one list", () => {
  it("GraphQL's RunStatus enum is the domain's list, in its order", () => {
    const schema = buildSchema(readFileSync("schema.graphql", "utf8"))
    const values = (schema.getType("RunStatus") as GraphQLEnumType).getValues().map((v) => v.name)
    expect(values).toEqual([...RUN_STATUSES])
  })
})
