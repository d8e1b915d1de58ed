/* global console, process */
// `npm run test:long`, after the long property tests: the cluster's kill test (three runners, one killed mid-way, every run followed from another
// server) again and again, with the test that no runner warned; stops at the first failure. AEON_KILL_REPEATS (10)
// rounds; needs AEON_TEST_DATABASE_URL (PostgreSQL). Each round is a fresh vitest process: fresh runners, a fresh
// database.
import { spawnSync } from "node:child_process"

const rounds = Number(process.env.AEON_KILL_REPEATS ?? 10)
if (!process.env.AEON_TEST_DATABASE_URL) {
  console.log(
    "the cluster's kill test, repeated: skipped, it needs AEON_TEST_DATABASE_URL (the cluster runs on PostgreSQL)"
  )
  process.exit(0)
}
const started = Date.now()
for (let i = 1; i <= rounds; i++) {
  const r = spawnSync(
    "npx",
    ["vitest", "run", "test/cluster/Cluster.test.ts", "-t", "killed mid-way|no runner warned"],
    {
      stdio: ["ignore", "pipe", "pipe"],
      encoding: "utf8"
    }
  )
  const summary = (r.stdout.match(/cluster: .*/) ?? ["(no summary)"])[0]
  console.log(`round ${i}/${rounds}: ${r.status === 0 ? "passed" : "FAILED"} · ${summary}`)
  if (r.status !== 0) {
    console.log(r.stdout.slice(-4000), r.stderr.slice(-2000))
    process.exit(1)
  }
}
console.log(`${rounds} rounds passed in ${Math.round((Date.now() - started) / 1000)} s`)
