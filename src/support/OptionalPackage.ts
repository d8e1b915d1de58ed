import { Data, Effect } from "effect"

/**
 * A package Aeon loads only when a feature needs it is not installed. The published package lists such packages as
 * optional peer dependencies (the embedded store's driver, Gemini's and MCP's SDKs, PostgreSQL's client,
 * OpenTelemetry): a library user installs only what they use; the CLI and the server carry them bundled.
 */
export class MissingPackageError extends Data.TaggedError("MissingPackageError")<{
  readonly packageName: string
  readonly feature: string
}> {
  override get message() {
    return `${this.feature} needs the package ${this.packageName}, which is not installed: npm install ${this.packageName}`
  }
}

const notFound = (e: unknown) =>
  typeof e === "object" && e !== null && "code" in e &&
  (e.code === "ERR_MODULE_NOT_FOUND" || e.code === "MODULE_NOT_FOUND")

/**
 * The module `load` imports (a literal `import("…")`, so bundlers see it), imported once per process; its absence a
 * MissingPackageError naming the package to install. Any other failure to load it is a defect.
 */
export const optionalPackage = <M>(packageName: string, feature: string, load: () => Promise<M>) => {
  let loading: Promise<M> | undefined
  return Effect.tryPromise({ try: () => (loading ??= load()), catch: (e) => e }).pipe(
    Effect.catchAll((e) => notFound(e) ? Effect.fail(new MissingPackageError({ packageName, feature })) : Effect.die(e))
  )
}
