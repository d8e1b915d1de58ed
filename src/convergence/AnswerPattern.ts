import { Either } from "effect"
import { RE2JS } from "re2js"
import { memoize } from "../support/Memoize.js"
import { messageOf } from "../support/Thrown.js"

/**
 * A user's `answerMatches` pattern, run by RE2's linear-time engine (re2js, a pure-JS port): a pattern cannot
 * backtrack, so no answer can stall the server's thread. RE2 has no look-around and no back-references; such a
 * pattern is refused with the engine's reason when the run's input is decoded.
 */
export type AnswerPattern = RE2JS

const compile = memoize((source: string): Either.Either<AnswerPattern, string> => {
  try {
    return Either.right(RE2JS.compile(source))
  } catch (e) {
    const reason = messageOf(e).replace(/^error parsing regexp: /, "")
    return Either.left(
      `answerMatches is not a pattern the linear-time engine (RE2 syntax) accepts: ${reason}` +
        (/\(\?[=!<]|\\[1-9k]/.test(source) ? " (look-around and back-references are not supported)" : "")
    )
  }
}, { limit: 1_000 })

/** The compiled pattern, or why it is refused (one line, for the caller). */
export const compileAnswerPattern = compile

/** Whether the pattern occurs somewhere in the answer (as `RegExp.test` does). */
export const answerMatches = (source: string, answer: string): boolean =>
  Either.match(compile(source), { onLeft: () => false, onRight: (p) => p.matcher(answer).find() })
