import { Effect, Option } from "effect"
import { InvalidRunInputError } from "../../domain/Errors.js"
import { isThreadCursor, isTurnCursor, type ThreadRow, Threads } from "../../store/Threads.js"
import type * as G from "./generated/graphql.js"
import type { GraphQLContext } from "./GraphQLContext.js"
import { pageRefusal } from "./QueryLimits.js"

/** A thread as the API's Thread type resolves it: its row (its turns read when asked). */
export type ThreadModel = ThreadRow

/** Whose threads a request reads and forgets: the caller's user with API keys bound to users, else userId's. */
const ownerOf = (ctx: GraphQLContext, userId: string | null | undefined) => ctx.userId ?? userId ?? ""

const threads = Effect.flatMap(
  Effect.serviceOption(Threads),
  Option.match({
    onNone: () => Effect.fail(new InvalidRunInputError({ message: "this server keeps no threads (it has no store)" })),
    onSome: Effect.succeed
  })
)

const refuse = (first: number | null | undefined, after: string | null | undefined, isCursor: (c: string) => boolean) =>
  Effect.suspend(() => {
    const refused = pageRefusal(first, after, isCursor)
    return refused ? Effect.fail(new InvalidRunInputError({ message: refused })) : Effect.void
  })

type Run = <A, E>(ctx: GraphQLContext, effect: Effect.Effect<A, E>) => Promise<A>

export const threadQueries = (run: Run): Pick<G.QueryResolvers, "thread" | "threads"> => ({
  thread: (_, { id, userId }, ctx) =>
    run(ctx, Effect.flatMap(threads, (t) => t.get(ownerOf(ctx, userId), id)).pipe(Effect.map(Option.getOrNull))),
  threads: (_, { after, first, userId }, ctx) =>
    run(
      ctx,
      Effect.gen(function*() {
        yield* refuse(first, after, isThreadCursor)
        const page = yield* (yield* threads).list(ownerOf(ctx, userId), {
          first: first ?? 20,
          ...(after ? { after } : {})
        })
        return {
          edges: page.items.map((node) => ({ cursor: cursorOfThread(node), node })),
          pageInfo: { endCursor: page.endCursor, hasNextPage: page.hasNextPage }
        }
      })
    )
})

const cursorOfThread = (t: ThreadRow) => Buffer.from(`${t.updatedAt.toISOString()}|${t.id}`).toString("base64url")

export const threadMutations = (run: Run): Pick<G.MutationResolvers, "forgetThread" | "forgetRun"> => ({
  forgetThread: (_, { id, userId }, ctx) =>
    run(ctx, Effect.flatMap(threads, (t) => t.forget(ownerOf(ctx, userId), id))),
  forgetRun: (_, { id, userId }, ctx) => run(ctx, Effect.flatMap(threads, (t) => t.forgetRun(ownerOf(ctx, userId), id)))
})

export const threadFields = (run: Run): G.ThreadResolvers => ({
  userId: (t) => (t.owner === "" ? null : t.owner),
  createdAt: (t) => t.createdAt.toISOString(),
  updatedAt: (t) => t.updatedAt.toISOString(),
  turnCount: (t) => t.turns,
  turns: (t, { after, first }, ctx) =>
    run(
      ctx,
      Effect.gen(function*() {
        yield* refuse(first, after, isTurnCursor)
        const page = yield* (yield* threads).turns(t.owner, t.id, { first: first ?? 20, ...(after ? { after } : {}) })
        return {
          edges: page.items.map((turn) => ({
            cursor: Buffer.from(String(turn.turn)).toString("base64url"),
            node: { ...turn, createdAt: turn.createdAt.toISOString(), data: turn.data ?? null }
          })),
          pageInfo: { endCursor: page.endCursor, hasNextPage: page.hasNextPage }
        }
      })
    )
})
