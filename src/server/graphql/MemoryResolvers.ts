import { Effect, Option } from "effect"
import { InvalidRunInputError } from "../../domain/Errors.js"
import { Memories } from "../../store/Memories.js"
import type * as G from "./generated/graphql.js"
import type { GraphQLContext } from "./GraphQLContext.js"
import { memoryView } from "./GraphQLViews.js"
import { pageRefusal } from "./QueryLimits.js"

/** Whose memories a request reads and forgets: the caller's user with API keys bound to users, else userId's. */
const ownerOf = (ctx: GraphQLContext, userId: string | null | undefined) => ctx.userId ?? userId ?? ""

const memories = Effect.flatMap(
  Effect.serviceOption(Memories),
  Option.match({
    onNone: () => Effect.fail(new InvalidRunInputError({ message: "this server keeps no memories (it has no store)" })),
    onSome: Effect.succeed
  })
)

/** A cursor of this list: the offset after the page it ended. */
const isOffset = (after: string) => /^\d{1,9}$/.test(after)

type Run = <A, E>(ctx: GraphQLContext, effect: Effect.Effect<A, E>) => Promise<A>

export const memoryQueries = (run: Run): Pick<G.QueryResolvers, "memories"> => ({
  memories: (_, { after, first, query, userId }, ctx) =>
    run(
      ctx,
      Effect.gen(function*() {
        const refused = pageRefusal(first, after, isOffset)
        if (refused) return yield* new InvalidRunInputError({ message: refused })
        const page = yield* (yield* memories).list(ownerOf(ctx, userId), {
          first: first ?? 20,
          after: after ?? undefined,
          query: query ?? undefined
        })
        return {
          edges: page.memories.map((m, i) => ({
            cursor: String(Number(after ?? 0) + i + 1),
            node: { ...memoryView(m), tags: [...m.tags], coverage: m.coverage ?? null }
          })),
          pageInfo: { endCursor: page.endCursor, hasNextPage: page.hasNextPage }
        }
      })
    )
})

export const memoryMutations = (run: Run): Pick<G.MutationResolvers, "forgetMemory" | "forgetMemories"> => ({
  forgetMemory: (_, { id, userId }, ctx) =>
    run(ctx, Effect.flatMap(memories, (m) => m.forget(ownerOf(ctx, userId), id))),
  forgetMemories: (_, { userId }, ctx) => run(ctx, Effect.flatMap(memories, (m) => m.forgetAll(ownerOf(ctx, userId))))
})
