// Lint and format: ESLint with typescript-eslint, and dprint's TypeScript formatter through @effect/eslint-plugin
// (the formatter the Effect repositories use). `npm run lint` checks, `npm run lint:fix` rewrites.
import * as effectEslint from "@effect/eslint-plugin"
import eslint from "@eslint/js"
import tseslint from "typescript-eslint"

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", "src/server/graphql/generated/**", "src/viewer/generated/**", ".aeon/**"] },
  eslint.configs.recommended,
  tseslint.configs.recommended,
  ...effectEslint.configs.dprint,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", {
        argsIgnorePattern: "^_",
        varsIgnorePattern: "^_",
        caughtErrors: "none"
      }],
      "@typescript-eslint/no-explicit-any": "off",
      "@effect/dprint": ["error", {
        config: {
          indentWidth: 2,
          lineWidth: 120,
          semiColons: "asi",
          quoteStyle: "alwaysDouble",
          trailingCommas: "never",
          operatorPosition: "maintain",
          "arrowFunction.useParentheses": "force"
        }
      }]
    }
  }
)
