import { Effect, Option } from "effect"
import type { RunModel } from "../../runs/RunModel.js"
import { Outbox } from "../../store/Outbox.js"
import type * as G from "./generated/graphql.js"
import type { GraphQLContext } from "./GraphQLContext.js"

type Run = <A, E>(ctx: GraphQLContext, effect: Effect.Effect<A, E, any>) => Promise<A>

/** Each attempt at telling a run's webhook of an event, in order, from the store's outbox (none without a store). */
export const runWebhookFields = (run: Run): Pick<G.RunResolvers, "webhookDeliveries"> => ({
  webhookDeliveries: (r: RunModel, _: unknown, ctx: GraphQLContext) =>
    run(
      ctx,
      Effect.flatMap(Effect.serviceOption(Outbox), (outbox) =>
        Option.isNone(outbox) ?
          Effect.succeed([]) :
          Effect.map(
            outbox.value.attempts(r.id),
            (attempts) => attempts.map((a) => ({ ...a, at: new Date(a.at).toISOString() }))
          ))
    )
})
