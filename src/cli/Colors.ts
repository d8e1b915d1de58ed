import picocolors from "picocolors"

/**
 * Colours only for a person at a terminal: stdout is a TTY and NO_COLOR is unset (or FORCE_COLOR asks
 * for them). picocolors' own default also turns colours on whenever `CI` is in the environment, which
 * would put escape codes into piped output and `--json` consumers' logs.
 */
const enabled = !("NO_COLOR" in process.env) && ("FORCE_COLOR" in process.env || process.stdout.isTTY === true)

export const pc = picocolors.createColors(enabled)
