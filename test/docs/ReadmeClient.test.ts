import { execFile } from "node:child_process"
import { rmSync, writeFileSync } from "node:fs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { documentation } from "../support/docs.js"
import { gql, startServer, type TestServer } from "../support/server.js"

let server: TestServer
beforeAll(async () => {
  server = await startServer()
})
afterAll(() => server?.stop())

/** The README's graphql-ws client snippet, as written there. */
const snippet = () => {
  const readme = documentation()
  const from = readme.indexOf("```ts", readme.indexOf("From a client:")) + "```ts".length
  return readme.slice(from, readme.indexOf("```", from))
}

describe("the README's subscription client", () => {
  it("runs on this Node as written and follows a run to RunFinished", async () => {
    const id = (await gql(
      server.url,
      `mutation { runTask(input: { task: "Compute 6 * 7 and explain it", mode: FULL }) { id } }`
    ))
      .body.data.runTask.id as string
    // the snippet, pointed at this server, with the run's id; in the project folder, where its imports resolve
    const file = `readme-client-${process.pid}.mjs`
    writeFileSync(
      file,
      `const id = ${JSON.stringify(id)}\n${
        snippet().replace("ws://127.0.0.1:4000/graphql", server.url.replace("http", "ws"))
      }`
    )
    try {
      const out = await new Promise<string>((resolve, reject) =>
        execFile(
          process.execPath,
          [file],
          { timeout: 60_000 },
          (e, stdout, stderr) => (e ? reject(new Error(`${e.message}\n${stderr}`)) : resolve(stdout))
        )
      )
      expect(out).toContain("RunFinished")
      expect(out).toContain("CONVERGED")
    } finally {
      rmSync(file, { force: true })
    }
  }, 90_000)
})
