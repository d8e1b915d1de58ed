/** A clear message and exit code 1 (bad flags, unreadable files, unreachable provider …). */
export class CliError extends Error {}

const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }

/** "30s", "2m", "500ms", "1h" or plain milliseconds. */
export const parseDuration = (text: string, flag = "--deadline"): number => {
  const m = text.trim().match(/^(\d+(?:\.\d+)?)\s*(ms|s|m|h)?$/)
  if (!m) throw new CliError(`${flag}: "${text}" is not a duration (examples: 30s, 2m, 500ms)`)
  return Math.round(Number(m[1]) * (UNIT_MS[m[2] ?? "ms"] ?? 1))
}
