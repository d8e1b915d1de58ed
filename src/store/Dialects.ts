/** How the schema's statements differ between the two stores: their JSON and time types, now(), an array's length. */
export interface Dialect {
  readonly json: string
  readonly time: string
  readonly now: string
  readonly arrayLength: string
}
export const pg: Dialect = { json: "jsonb", time: "timestamptz", now: "now()", arrayLength: "jsonb_array_length" }
export const sqlite: Dialect = {
  json: "text",
  time: "text",
  now: "(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))",
  arrayLength: "json_array_length"
}
