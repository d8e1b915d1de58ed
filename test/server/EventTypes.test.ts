import { buildSchema, isObjectType } from "graphql"
import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { RUN_EVENT_TAGS } from "../../src/domain/RunEvent.js"

/**
 * Every event a run can emit has its GraphQL type (`${tag}Event`, a RunEvent): the API resolves an event's type by
 * its tag, and one without a type fails the subscription that meets it (found with ConversationQuoted, #56).
 */
describe("the API's event types", () => {
  it("every RunEvent tag has an object type implementing RunEvent", () => {
    const schema = buildSchema(readFileSync("schema.graphql", "utf8"))
    for (const tag of RUN_EVENT_TAGS) {
      const type = schema.getType(`${tag}Event`)
      expect(type && isObjectType(type), `${tag}Event`).toBe(true)
      if (type && isObjectType(type)) expect(type.getInterfaces().map((i) => i.name)).toContain("RunEvent")
    }
  })
})
