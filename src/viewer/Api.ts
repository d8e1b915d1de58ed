import { messageOf } from "../support/Thrown.js"
/** The viewer's GraphQL access: the same endpoint and subscription as every client, with the key the user gave. */
const KEY = "aeon-api-key"

export const apiKey = () => sessionStorage.getItem(KEY) ?? ""
export const setApiKey = (key: string) => sessionStorage.setItem(KEY, key)

export class Unauthorized extends Error {}

const headers = (accept: string): Record<string, string> => ({
  "content-type": "application/json",
  accept,
  ...(apiKey() ? { authorization: `Bearer ${apiKey()}` } : {})
})

export interface GqlError {
  readonly message: string
  readonly extensions?: { readonly code?: string }
}

/** A query or mutation; throws Unauthorized on 401, an Error with the first message on a GraphQL error. */
export const gql = async <T>(query: string, variables: Record<string, unknown> = {}): Promise<T> => {
  const res = await fetch("/graphql", {
    method: "POST",
    headers: headers("application/json"),
    body: JSON.stringify({ query, variables })
  })
  if (res.status === 401) throw new Unauthorized("an API key is needed")
  const body = await res.json() as { data?: T; errors?: Array<GqlError> }
  const failure = body.errors?.[0]
  if (failure) throw new Error(failure.message)
  return body.data as T
}

/**
 * A subscription over GraphQL over SSE (distinct connections): each `next` event's data goes to `onData`. Returns
 * a function that stops it.
 */
export const subscribe = <T>(
  query: string,
  variables: Record<string, unknown>,
  onData: (data: T) => void,
  onEnd: (error?: string) => void
): () => void => {
  const abort = new AbortController()
  void (async () => {
    try {
      const res = await fetch("/graphql", {
        method: "POST",
        headers: headers("text/event-stream"),
        body: JSON.stringify({ query, variables }),
        signal: abort.signal
      })
      if (res.status === 401) throw new Unauthorized("an API key is needed")
      const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader()
      let buffer = ""
      for (;;) {
        const { done, value } = await reader.read()
        if (done) break
        buffer += value
        let end: number
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const frame = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          const event = frame.match(/^event: (.*)$/m)?.[1]
          const data = frame.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trim()).join("\n")
          if (event === "complete") return onEnd()
          if (event === "next" && data) {
            const result = JSON.parse(data) as { data?: T; errors?: Array<GqlError> }
            const failure = result.errors?.[0]
            if (failure) return onEnd(failure.message)
            if (result.data) onData(result.data)
          }
        }
      }
      onEnd()
    } catch (e) {
      if (!abort.signal.aborted) onEnd(messageOf(e))
    }
  })()
  return () => abort.abort()
}
