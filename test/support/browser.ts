import { execSync } from "node:child_process"
import { existsSync } from "node:fs"
import { chromium } from "playwright-core"

const CHROMIUM = "/usr/bin/chromium"

/** Debian's chromium, installed by the suite when it can (root and apt); otherwise the failure says how. */
const ensureChromium = () => {
  if (existsSync(CHROMIUM)) return
  if (process.getuid?.() === 0) {
    execSync("apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium", {
      stdio: "inherit",
      timeout: 15 * 60_000
    })
    if (existsSync(CHROMIUM)) return
  }
  throw new Error(
    `Chromium is missing at ${CHROMIUM}: install it with "sudo apt-get install -y chromium" (Debian) and run the tests again`
  )
}

/** Headless chromium with the flags this closed network needs (no background connections). */
export const launchBrowser = () => {
  ensureChromium()
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-quic",
      "--no-first-run",
      "--disable-component-update",
      "--disable-sync"
    ]
  })
}
