/** What was thrown, in words: an Error's message, anything else as a string (a library may throw a string or a code). */
export const messageOf = (thrown: unknown): string => thrown instanceof Error ? thrown.message : String(thrown)
