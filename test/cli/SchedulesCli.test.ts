import { describe, expect, it } from "vitest"
import { cliIn } from "../support/cli.js"

// `aeon schedules` (#73.3) on the embedded store: add, list, a bad cron refused, rm
describe("aeon schedules", () => {
  it("adds a schedule, lists it, refuses a bad cron, deletes it", async () => {
    const { aeon } = cliIn("aeon-schedules-cli-")
    const added = await aeon(
      "schedules",
      "add",
      "--json",
      "--cron",
      "0 9 * * 1-5",
      "--timezone",
      "Europe/Paris",
      "Daily report"
    )
    expect(added.stderr).toBe("")
    const [made] = JSON.parse(added.stdout)
    expect(made).toMatchObject({ cron: "0 9 * * 1-5", timezone: "Europe/Paris", task: "Daily report", enabled: true })
    expect(new Date(made.nextRunAt).getUTCMinutes()).toBe(0)
    const listed = await aeon("schedules")
    expect(listed.stdout).toContain(`${made.id}  0 9 * * 1-5 (Europe/Paris)  next `)
    const bad = await aeon("schedules", "add", "--cron", "* * *", "x")
    expect(bad.code).not.toBe(0)
    expect(bad.stderr).toContain("INVALID_SCHEDULE")
    const removed = await aeon("schedules", "rm", made.id)
    expect(removed.stdout).toContain(`schedule ${made.id} deleted`)
    expect((await aeon("schedules")).stdout).toContain("no schedules")
  }, 60_000)
})
