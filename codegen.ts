import type { CodegenConfig } from "@graphql-codegen/cli"

/** Schema-first: the resolver types and the viewer's operation types are generated from schema.graphql (`npm run codegen`). */
const config: CodegenConfig = {
  schema: "schema.graphql",
  generates: {
    "src/server/graphql/generated/graphql.ts": {
      plugins: ["typescript", "typescript-resolvers"],
      config: {
        useTypeImports: true,
        enumsAsTypes: true,
        contextType: "../GraphQLContext.js#GraphQLContext",
        mappers: {
          Run: "../../../runs/RunModel.js#RunModel",
          RunEvent: "../GraphQLViews.js#EventView",
          Thread: "../ThreadResolvers.js#ThreadModel",
          Schedule: "../ScheduleResolvers.js#ScheduleView"
        },
        scalars: { JSON: "unknown", DateTime: "string" },
        avoidOptionals: false,
        maybeValue: "T | null | undefined"
      }
    },
    // the viewer's types: each of its operations' results, from the operations it sends
    "src/viewer/generated/operations.ts": {
      documents: ["src/viewer/**/*.tsx"],
      plugins: ["typescript-operations"],
      config: {
        useTypeImports: true,
        enumsAsTypes: true,
        onlyOperationTypes: true,
        scalars: { JSON: "unknown", DateTime: "string" },
        avoidOptionals: true,
        maybeValue: "T | null",
        preResolveTypes: true
      }
    }
  }
}
export default config
