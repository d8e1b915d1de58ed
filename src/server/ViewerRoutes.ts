import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect } from "effect"
import { readPackageFile } from "../support/PackageFiles.js"
import { viewerPage } from "../viewer/page.js"

/** Aeon's icon: a ring (a pass around) on the viewer's blue. */
export const FAVICON =
  `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" ` +
  `fill="#1f5fbf"/><circle cx="16" cy="16" r="8.5" fill="none" stroke="#fff" stroke-width="3.5"/>` +
  `<circle cx="24.5" cy="16" r="3" fill="#fff"/></svg>`

/** The viewer's script, built into dist/viewer by the build (said so when it is not). */
const script = Effect.sync(() => {
  try {
    return HttpServerResponse.text(readPackageFile("dist/viewer/viewer.js"), {
      contentType: "text/javascript; charset=utf-8",
      headers: { "cache-control": "no-cache" }
    })
  } catch {
    return HttpServerResponse.text("the run viewer is not built: run npm run build", { status: 404 })
  }
})

const page = Effect.sync(() => HttpServerResponse.html(viewerPage("/viewer/viewer.js")))
const icon = HttpServerResponse.text(FAVICON, {
  contentType: "image/svg+xml",
  headers: { "cache-control": "max-age=86400" }
})

/** The paths of the viewer's page: the runs' list (with or without its last slash) and one run, the threads, memory across runs. */
const PAGES = ["/runs", "/runs/:id", "/threads", "/threads/:id", "/memory"] as const

/**
 * The run viewer: /runs (the list), /runs/:id (one run, live), /threads and /memory are its page, /viewer/viewer.js its
 * script; the root is the list, the icon the one a browser asks every page for. The page holds no data: it reads the
 * API like any client, with the caller's key.
 */
export const viewerRoutes = PAGES.reduce(
  (router, path) => HttpRouter.get(router, path, page),
  HttpRouter.empty.pipe(
    HttpRouter.get("/viewer/viewer.js", script),
    HttpRouter.get("/", Effect.succeed(HttpServerResponse.redirect("/runs", { status: 302 }))),
    HttpRouter.get("/favicon.ico", Effect.succeed(icon)),
    HttpRouter.get("/favicon.svg", Effect.succeed(icon))
  )
)
