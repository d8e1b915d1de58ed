import { Config, Duration, Schema } from "effect"

/** `AEON_CLUSTER=1`: this server is a runner of a cluster on the PostgreSQL of AEON_DATABASE_URL. */
export const clusterConfig = Config.all({
  enabled: Config.boolean("AEON_CLUSTER").pipe(
    Config.withDescription("1: this server is a runner of a cluster (needs AEON_DATABASE_URL, PostgreSQL)"),
    Config.withDefault(false)
  ),
  runnerHost: Config.string("AEON_RUNNER_HOST").pipe(
    Config.withDescription("The address other runners reach this one at"),
    Config.withDefault("127.0.0.1")
  ),
  runnerPort: Config.integer("AEON_RUNNER_PORT").pipe(
    Config.withDescription("The port other runners reach this one at"),
    Config.withDefault(34431)
  ),
  runnerListenHost: Config.option(
    Config.string("AEON_RUNNER_LISTEN_HOST").pipe(
      Config.withDescription("The interface the runner listens on (default: AEON_RUNNER_HOST; 0.0.0.0 in a container)")
    )
  ),
  shardLockExpiration: Config.duration("AEON_SHARD_LOCK_EXPIRATION").pipe(
    Config.withDescription("How long a dead runner's shards stay locked (its runs resume elsewhere after it)"),
    Config.withDefault(Duration.seconds(6))
  ),
  shardLockRefresh: Config.duration("AEON_SHARD_LOCK_REFRESH").pipe(
    Config.withDescription("How often a runner refreshes its shard locks"),
    Config.withDefault(Duration.seconds(2))
  ),
  refreshAssignments: Config.duration("AEON_SHARD_REFRESH").pipe(
    Config.withDescription("How often a runner looks for runners gone or added and takes up free shards"),
    Config.withDefault(Duration.seconds(1))
  )
})
export type ClusterConfig = Config.Config.Success<typeof clusterConfig>

/** AEON_CLUSTER without PostgreSQL. */
export class ClusterNeedsPostgresError extends Schema.TaggedError<ClusterNeedsPostgresError>()(
  "ClusterNeedsPostgresError",
  {}
) {
  override get message() {
    return "AEON_CLUSTER=1 needs AEON_DATABASE_URL: a cluster's runners share a PostgreSQL database"
  }
}
