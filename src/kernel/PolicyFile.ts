/** The operator's untrusted-data policy file (AEON_UNTRUSTED_POLICY, `aeon replay --policy FILE`), read and checked. */
import { Data, Effect, Either, ParseResult, Schema } from "effect"
import { readFileSync } from "node:fs"
import { UntrustedPolicy } from "../domain/UntrustedPolicy.js"
import { messageOf } from "../support/Thrown.js"

export class PolicyFileError extends Data.TaggedError("PolicyFileError")<{ readonly message: string }> {}

export const loadPolicy = (file: string) =>
  Effect.gen(function*() {
    const raw = yield* Effect.try({
      try: (): unknown => JSON.parse(readFileSync(file, "utf8")),
      catch: (e) => new PolicyFileError({ message: `untrusted-data policy ${file}: ${messageOf(e)}` })
    })
    const decoded = Schema.decodeUnknownEither(UntrustedPolicy)(raw, { onExcessProperty: "error", errors: "all" })
    if (Either.isLeft(decoded)) {
      const why = ParseResult.ArrayFormatter.formatErrorSync(decoded.left).slice(0, 5)
        .map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")
      return yield* new PolicyFileError({ message: `untrusted-data policy ${file}: ${why}` })
    }
    return decoded.right
  })
