/* global process */
// An MCP server (the official SDK, stdio) with a generated catalog of CATALOG_SIZE tools across domains (a CRM, a
// cloud console, a code host, …), as large real servers expose: each tool with a description and an input of a few
// described fields. The first is `weather_forecast`; every tool answers with what it was asked (a forecast for the
// weather tool). Generated, not chosen: the names come from the domains' verbs and nouns in order.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import { z } from "zod"

const size = Number(process.env.CATALOG_SIZE ?? 400)

const DOMAINS = [
  ["crm", "customer relationship records", ["contact", "lead", "deal", "account", "opportunity", "note"]],
  ["cloud", "cloud console resources", ["instance", "bucket", "volume", "snapshot", "network", "firewall_rule"]],
  ["git", "code host repositories", ["repository", "branch", "pull_request", "issue", "release", "webhook"]],
  ["calendar", "calendar scheduling", ["event", "invitation", "room", "reminder", "availability", "calendar"]],
  ["mail", "email mailboxes", ["message", "draft", "folder", "label", "attachment", "filter"]],
  ["billing", "invoices and payments", ["invoice", "payment", "refund", "subscription", "coupon", "customer"]],
  ["files", "document storage", ["file", "folder", "share_link", "permission", "revision", "comment"]],
  ["db", "database administration", ["table", "index", "backup", "user", "query_plan", "migration"]],
  ["analytics", "product analytics", ["dashboard", "metric", "funnel", "cohort", "report", "segment"]],
  ["hr", "human resources", ["employee", "leave_request", "payslip", "position", "review", "team"]],
  ["support", "customer support desk", ["ticket", "macro", "agent", "sla_policy", "satisfaction_survey", "queue"]],
  ["shop", "online store catalog", ["product", "order", "shipment", "inventory_item", "discount", "cart"]]
]
const VERBS = [
  ["create", "Creates"],
  ["get", "Reads"],
  ["update", "Updates"],
  ["delete", "Deletes"],
  ["list", "Lists"],
  ["archive", "Archives"]
]

const tools = [{
  name: "weather_forecast",
  description: "Gets the weather forecast for a city: temperature and conditions for the coming days.",
  fields: {
    city: z.string().describe("the city, e.g. Lisbon"),
    days: z.number().int().optional().describe("how many days ahead (1-7)")
  },
  answer: ({ city }) => ({ city, forecast: "sunny, 24 °C" })
}]
for (const [verb, said] of VERBS) {
  for (const [domain, area, nouns] of DOMAINS) {
    for (const noun of nouns) {
      if (tools.length >= size) break
      const thing = noun.replace(/_/g, " ")
      tools.push({
        name: `${domain}_${verb}_${noun}`,
        description: `${said} a ${thing} in the ${area}. Returns the ${thing} as stored, with its id and timestamps.`,
        fields: {
          id: z.string().optional().describe(`the ${thing}'s id (absent to create one)`),
          name: z.string().optional().describe(`the ${thing}'s name or title`),
          ...(verb === "list" ? { limit: z.number().int().optional().describe("at most this many") } : {})
        },
        answer: (input) => ({ ok: true, [noun]: input })
      })
    }
  }
}
let n = 0
while (tools.length < size) {
  // past the named ones: numbered variants of a domain's tools
  const [domain, area, nouns] = DOMAINS[n % DOMAINS.length]
  const noun = nouns[n % nouns.length]
  tools.push({
    name: `${domain}_sync_${noun}_${n}`,
    description: `Synchronizes ${noun.replace(/_/g, " ")} batch ${n} of the ${area} with its mirror.`,
    fields: { batch: z.number().int().describe("the batch number") },
    answer: (input) => ({ ok: true, synced: input })
  })
  n++
}

const server = new McpServer({ name: "catalog", version: "1.0.0" })
for (const t of tools) {
  server.registerTool(
    t.name,
    { description: t.description, inputSchema: t.fields, annotations: { readOnlyHint: true } },
    async (input) => ({ content: [{ type: "text", text: JSON.stringify(t.answer(input)) }] })
  )
}
await server.connect(new StdioServerTransport())
