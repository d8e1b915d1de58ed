import type { IncomingMessage, ServerResponse } from "node:http"
import { readPackageFile } from "../support/PackageFiles.js"
import { viewerPage } from "../viewer/page.js"

/** Aeon's icon: a ring (a pass around) on the viewer's blue. */
export const FAVICON =
  `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" ` +
  `fill="#1f5fbf"/><circle cx="16" cy="16" r="8.5" fill="none" stroke="#fff" stroke-width="3.5"/>` +
  `<circle cx="24.5" cy="16" r="3" fill="#fff"/></svg>`

/**
 * The run viewer: /runs (the list), /runs/:id (one run, live) and /memory (memory across runs) are its page, /viewer/viewer.js its script (built into
 * dist/viewer by the build). The page holds no data: it reads the API like any client, with the caller's key.
 */
export const serveViewer = (req: IncomingMessage, res: ServerResponse): boolean => {
  if (req.method !== "GET" && req.method !== "HEAD") return false
  const path = (req.url ?? "").split("?")[0] ?? ""
  if (path === "/viewer/viewer.js") {
    let script: string
    try {
      script = readPackageFile("dist/viewer/viewer.js")
    } catch {
      res.writeHead(404, { "content-type": "text/plain" }).end("the run viewer is not built: run npm run build")
      return true
    }
    res.writeHead(200, { "content-type": "text/javascript; charset=utf-8", "cache-control": "no-cache" }).end(script)
    return true
  }
  // the root is the run viewer's list; the icon a browser asks every page for
  if (path === "/") {
    res.writeHead(302, { location: "/runs" }).end()
    return true
  }
  if (path === "/favicon.ico" || path === "/favicon.svg") {
    res.writeHead(200, { "content-type": "image/svg+xml", "cache-control": "max-age=86400" }).end(FAVICON)
    return true
  }
  if (
    path === "/runs" || path === "/runs/" || /^\/runs\/[^/]+$/.test(path) || /^\/threads\/[^/]+$/.test(path) ||
    path === "/threads" || path === "/memory"
  ) {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(viewerPage("/viewer/viewer.js"))
    return true
  }
  return false
}
