/** An order as typed-result tests ask for it: a number and a list of priced items, every field required. */
export const ORDER = {
  type: "object",
  properties: {
    product: { type: "number" },
    items: {
      type: "array",
      items: {
        type: "object",
        properties: { name: { type: "string" }, price: { type: "number" } },
        required: ["name", "price"]
      }
    }
  },
  required: ["product", "items"]
}
