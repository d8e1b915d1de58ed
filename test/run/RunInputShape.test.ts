import { buildSchema, type GraphQLInputObjectType } from "graphql"
import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { ConvergenceCriteria } from "../../src/convergence/Criteria.js"
import { Budget } from "../../src/domain/Budget.js"
import { RunTaskInput } from "../../src/run/RunInput.js"

/**
 * A run's input is one schema (run/RunInput): GraphQL's input types say the same fields (a test fails when either
 * gains or loses one), the MCP tool's schema is derived from it (test/mcp/AeonAsMcpServer), the CLI maps its flags
 * onto it and the run input's decode checks them.
 */
const schema = buildSchema(readFileSync("schema.graphql", "utf8"))
const fieldsOf = (name: string) => Object.keys((schema.getType(name) as GraphQLInputObjectType).getFields()).sort()

describe("a run's input, one shape", () => {
  it("GraphQL's RunTaskInput has RunTaskInput's fields", () => {
    expect(fieldsOf("RunTaskInput")).toEqual(Object.keys(RunTaskInput.fields).sort())
  })

  it("and its budget and criteria the domain's", () => {
    expect(fieldsOf("BudgetInput")).toEqual(Object.keys(Budget.fields).sort())
    expect(fieldsOf("ConvergenceCriteriaInput")).toEqual(Object.keys(ConvergenceCriteria.fields).sort())
  })
})
