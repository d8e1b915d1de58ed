import type { IncomingMessage } from "node:http"

/** A request's body read as JSON within a limit. */
export type Body = { readonly _tag: "json"; readonly value: unknown } | { readonly _tag: "tooLarge" | "notJson" }

export const readJson = (req: IncomingMessage, maxBytes: number) =>
  new Promise<Body>((resolve) => {
    const chunks: Array<Buffer> = []
    let size = 0
    req.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (size <= maxBytes) return void chunks.push(chunk)
      req.removeAllListeners("data")
      req.resume()
      resolve({ _tag: "tooLarge" })
    })
    req.on("end", () => {
      if (size > maxBytes) return
      try {
        resolve({ _tag: "json", value: JSON.parse(Buffer.concat(chunks).toString("utf8")) })
      } catch {
        resolve({ _tag: "notJson" })
      }
    })
    req.on("error", () => resolve({ _tag: "notJson" }))
  })
