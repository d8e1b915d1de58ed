import type { CodegenConfig } from "@graphql-codegen/cli"

/** Schema-first: the resolver types are generated from schema.graphql (`npm run codegen`). */
const config: CodegenConfig = {
  schema: "schema.graphql",
  generates: {
    "src/server/generated/graphql.ts": {
      plugins: ["typescript", "typescript-resolvers"],
      config: {
        useTypeImports: true,
        enumsAsTypes: true,
        contextType: "../GraphQLContext.js#GraphQLContext",
        mappers: { Run: "../RunModel.js#RunModel", RunEvent: "../GraphQLViews.js#EventView" },
        scalars: { JSON: "unknown", DateTime: "string" },
        avoidOptionals: false,
        maybeValue: "T | null | undefined"
      }
    }
  }
}
export default config
