import { buildExecutionContext } from "@graphql-tools/executor"
import {
  createSourceEventStream,
  type DocumentNode,
  execute,
  type ExecutionArgs,
  type ExecutionResult,
  getOperationAST,
  GraphQLError,
  type OperationDefinitionNode
} from "graphql"
import { isAsyncIterable, isPromise, type Plugin } from "graphql-yoga"
import { memoizeWeak } from "../support/Memoize.js"

/**
 * One execution and one serialization per (event, operation), shared by every subscriber that follows the same run
 * with the same document and variables (issue 19, item 1). A run's event reaches 100 subscribers as one object
 * (GraphQLViews' shared payloads); its selection is executed once per distinct (document, operation name,
 * variables), and the result's JSON is made once, for SSE (yoga's `result.stringify`) and WebSocket (`sharedMessages`).
 *
 * Safe because the fields below a shared subscription read nothing but the event: no resolver of an event type takes
 * the caller's context (the subscription's own resolver, which checks who may follow the run, still runs per
 * subscriber). A result with errors is never shared.
 */
const SHARED_FIELDS = new Set(["runEvents", "runEventBatches"])

let nextDocumentId = 0
const documentId = memoizeWeak((_: DocumentNode) => nextDocumentId++)
const operationKey = (args: ExecutionArgs) => {
  const id = documentId(args.document)
  return `${id}\u0000${args.operationName ?? ""}\u0000${JSON.stringify(args.variableValues ?? {})}`
}

/** Results by shared payload, then by operation: they live as long as the event does. */
const results = memoizeWeak((_: object) => new Map<string, ExecutionResult>())
/** A shared result's JSON, made as it is shared (each of its subscribers' transports sends it as JSON). */
const jsonOf = new WeakMap<object, string>()

/** The shared JSON of a result, when it is one. */
const sharedJson = (result: unknown): string | undefined =>
  typeof result === "object" && result !== null ? jsonOf.get(result) : undefined

/** yoga's SSE serializes a result with its `stringify` when it has one: a shared result's is its JSON. */
const stringifyShared = (r: unknown) => sharedJson(r) ?? JSON.stringify(r)

const executeShared = (args: ExecutionArgs, key: string, payload: unknown): ExecutionResult => {
  if (payload === null || typeof payload !== "object") {
    return execute({ ...args, rootValue: payload }) as ExecutionResult
  }
  const byOperation = results(payload)
  let result = byOperation.get(key)
  if (result === undefined) {
    result = execute({ ...args, rootValue: payload }) as ExecutionResult
    if (result.errors !== undefined || isPromise(result)) return result
    jsonOf.set(result, JSON.stringify(result))
    Object.defineProperty(result, "stringify", { value: stringifyShared, enumerable: false })
    byOperation.set(key, result)
  }
  return result
}

/** A subscription's source mapped through the shared execution; `return()` reaches the source (the client left). */
const mapped = (
  source: AsyncIterator<unknown>,
  toResult: (payload: unknown) => ExecutionResult,
  operation: OperationDefinitionNode
): AsyncIterableIterator<ExecutionResult> => {
  const located = (e: unknown) =>
    Promise.reject(
      e instanceof Error ? new GraphQLError(e.message, { nodes: [operation], originalError: e }) : e
    )
  const done: IteratorResult<ExecutionResult> = { done: true, value: undefined }
  const iterator: AsyncIterableIterator<ExecutionResult> = {
    next: () =>
      source.next().then(
        (r): IteratorResult<ExecutionResult> => (r.done ? done : { done: false, value: toResult(r.value) }),
        located
      ),
    return: () => (source.return ? source.return().then(() => done) : Promise.resolve(done)),
    throw: (e) => iterator.return!().then(() => Promise.reject(e)),
    [Symbol.asyncIterator]: () => iterator
  }
  return iterator
}

/** The envelop plugin: subscriptions to the run's events execute each event once per operation. */
export const sharedSubscriptions: Plugin = {
  onSubscribe({ args, setSubscribeFn, subscribeFn }) {
    const operation = getOperationAST(args.document, args.operationName)
    const only = operation?.selectionSet.selections.length === 1 ? operation.selectionSet.selections[0] : undefined
    if (!operation || only?.kind !== "Field" || !SHARED_FIELDS.has(only.name.value)) return
    setSubscribeFn(async (a) => {
      // arguments refused (variables): the default path refuses them in its own words, without calling the resolver
      if (!("schema" in buildExecutionContext(a))) return subscribeFn(a)
      const source = await createSourceEventStream(a)
      if (!isAsyncIterable(source)) return source // the resolver refused (the run is not found, not the caller's)
      const key = operationKey(a)
      return mapped(source[Symbol.asyncIterator](), (payload) => executeShared(a, key, payload), operation)
    })
  }
}

/**
 * graphql-ws's `next` message with a shared result: the result is the payload as it is (not copied), and the
 * message's JSON carries a placeholder where the payload goes; BurstDelivery's WebSocket send puts the shared JSON in its place as
 * it sends. The placeholder is a string in the message's own `payload` (every other payload is an object), so it
 * cannot be mistaken for anything a result holds.
 */
const pending = new Map<number, string>()
let nextPlaceholder = 0
// the placeholder as it reads in the message's JSON (JSON.stringify writes the NUL characters as \u0000)
const PLACEHOLDER_START = "\"payload\":\"\\u0000"
const PLACEHOLDER_END = "\\u0000\"}"
export const sharedMessages = {
  onNext: (_ctx: unknown, _id: string, _payload: unknown, _args: unknown, result: ExecutionResult) =>
    jsonOf.has(result) ? result : undefined,
  jsonMessageReplacer: function(this: { readonly type?: unknown }, key: string, value: unknown) {
    if (key !== "payload" || this.type !== "next") return value
    const json = sharedJson(value)
    if (json === undefined) return value
    const n = nextPlaceholder++
    pending.set(n, json)
    return `\u0000${n}\u0000`
  }
}
/** A graphql-ws message with its shared payload in place (a message without one is returned as it is). */
export const withSharedPayload = (data: string): string => {
  // every message goes through here: the end is checked first (a regex over a 1 MiB query result took 1.6 ms)
  if (!data.endsWith(PLACEHOLDER_END)) return data
  const at = data.lastIndexOf(PLACEHOLDER_START)
  const json = at < 0
    ? undefined
    : pending.get(Number(data.slice(at + PLACEHOLDER_START.length, -PLACEHOLDER_END.length)))
  if (json === undefined) return data
  pending.clear() // a message whose socket closed before it was sent leaves its entry: at most until the next one
  return `${data.slice(0, at)}"payload":${json}}`
}
