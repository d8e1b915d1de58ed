import { execFile } from "node:child_process"
import { rmSync, writeFileSync } from "node:fs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { documentation } from "../support/docs.js"
import { startServer, type TestServer } from "../support/server.js"

// The README's protocol snippets, as written there, each with its protocol's official client, against a server on
// the offline stand-in: the first line of each's output must hold the answer.
let server: TestServer
beforeAll(async () => {
  server = await startServer()
})
afterAll(() => server?.stop())

const snippet = (name: string) => {
  const readme = documentation()
  const marker = readme.indexOf(`<!-- protocol-snippet: ${name} -->`)
  expect(marker).toBeGreaterThan(0)
  const from = readme.indexOf("```js", marker) + "```js".length
  return readme.slice(from, readme.indexOf("```", from))
}

const run = async (name: string) => {
  const file = `readme-${name}-${process.pid}.mjs`
  writeFileSync(file, snippet(name).replaceAll("http://127.0.0.1:4000", server.url.replace(/\/graphql$/, "")))
  try {
    return await new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        [file],
        { timeout: 60_000 },
        (e, stdout, stderr) => e ? reject(new Error(`${e.message}\n${stderr}`)) : resolve(stdout)
      )
    )
  } finally {
    rmSync(file, { force: true })
  }
}

describe("the README's protocol snippets run as written", () => {
  it("OpenAI Responses: a response, then the next turn of its conversation", async () => {
    const out = await run("responses")
    expect(out).toMatch(/45[^]*90 \d+/)
  }, 90_000)

  it("OpenAI: the streamed answer, then the run's usage", async () => {
    const out = await run("openai")
    expect(out).toContain("42")
    expect(out).toMatch(/total_tokens: \d+/)
  }, 90_000)

  it("AG-UI: the plan's approval as an interrupt, approved, then the answer", async () => {
    const out = await run("ag-ui")
    expect(out).toMatch(/^plan_approval — /)
    expect(out).toMatch(/42 CONVERGED/)
  }, 90_000)

  it("the AI SDK's UI stream: the answer's text and the run's reasoning", async () => {
    const out = await run("ui-stream")
    expect(out.split("\n").slice(0, 2).join("\n")).toContain("42")
    expect(out).toContain("Pass 1: execute")
  }, 90_000)

  it("A2A: the task completed with the answer as its artifact", async () => {
    const out = await run("a2a")
    expect(out).toMatch(/^TASK_STATE_COMPLETED [^]*42/) // the state by name (#76 item 7)
  }, 90_000)
})
