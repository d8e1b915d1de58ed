import { describe, expect, it } from "vitest"
import { codeOf, definedOnly, fieldOf, recordField, recordOf, stringField } from "../../src/support/Fields.js"

describe("reading a value of no known shape", () => {
  it("a field is read where the value has it, undefined where it has none or is no object", () => {
    expect(fieldOf({ a: 1 }, "a")).toBe(1)
    expect(fieldOf({ a: 1 }, "b")).toBeUndefined()
    for (const none of [null, undefined, "a", 3, true]) expect(fieldOf(none, "a")).toBeUndefined()
    expect(fieldOf(["x"], "0")).toBe("x") // an array's index is a field
  })

  it("typed reads give the field only when it has the type", () => {
    expect(stringField({ m: "x" }, "m")).toBe("x")
    expect(stringField({ m: 1 }, "m")).toBeUndefined()
    expect(recordField({ o: { k: 1 } }, "o")).toEqual({ k: 1 })
    expect(recordField({ o: [1] }, "o")).toBeUndefined()
    expect(recordOf([1])).toBeUndefined()
    expect(recordOf(null)).toBeUndefined()
    expect(recordOf({ k: 1 })).toEqual({ k: 1 })
  })

  it("a thrown value's code: a Node errno's, a driver's; none from a string or a numeric code", () => {
    expect(codeOf(Object.assign(new Error("gone"), { code: "ENOENT" }))).toBe("ENOENT")
    expect(codeOf("ENOENT")).toBeUndefined()
    expect(codeOf({ code: 5 })).toBeUndefined()
  })

  it("only the fields given are kept", () => {
    expect(definedOnly({ a: "1", b: undefined, c: "" })).toEqual({ a: "1", c: "" })
  })
})
