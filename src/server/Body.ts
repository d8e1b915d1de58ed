import type { IncomingMessage } from "node:http"

/** A request's body read within a limit: its bytes, or over the limit (the rest drained), or broken off. */
export type Bytes =
  | { readonly _tag: "bytes"; readonly value: Buffer }
  | { readonly _tag: "tooLarge" }
  | { readonly _tag: "broken" }

/**
 * The one reader of request bodies on the edge (GraphQL's, /mcp's and the protocols' JSON): a declared length over the
 * limit refused before a byte is kept, a chunked body counted as it comes.
 */
export const readBytes = (req: IncomingMessage, maxBytes: number) =>
  new Promise<Bytes>((resolve) => {
    if (req.headers["content-length"] !== undefined && Number(req.headers["content-length"]) > maxBytes) {
      req.resume()
      return resolve({ _tag: "tooLarge" })
    }
    const chunks: Array<Buffer> = []
    let size = 0
    req.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (size <= maxBytes) return void chunks.push(chunk)
      req.removeAllListeners("data")
      req.resume()
      resolve({ _tag: "tooLarge" })
    })
    req.on("end", () => size <= maxBytes && resolve({ _tag: "bytes", value: Buffer.concat(chunks) }))
    req.on("error", () => resolve({ _tag: "broken" }))
  })

/** A request's body read as JSON within a limit. */
export type Body = { readonly _tag: "json"; readonly value: unknown } | { readonly _tag: "tooLarge" | "notJson" }

export const readJson = async (req: IncomingMessage, maxBytes: number): Promise<Body> => {
  const read = await readBytes(req, maxBytes)
  if (read._tag === "tooLarge") return { _tag: "tooLarge" }
  if (read._tag === "broken") return { _tag: "notJson" }
  try {
    return { _tag: "json", value: JSON.parse(read.value.toString("utf8")) }
  } catch {
    return { _tag: "notJson" }
  }
}

/** What a request over the body limit is told, on every surface: the limit and the setting that raises it. */
export const tooLargeMessage = (maxBytes: number) =>
  `request body over ${maxBytes} bytes (the server's AEON_MAX_BODY_BYTES)`
