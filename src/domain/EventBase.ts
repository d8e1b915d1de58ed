import { Schema } from "effect"

/** What every run event carries besides its own fields: its run, its place in the run's log, its time. */
export const EventBase = { runId: Schema.String, seq: Schema.Int, at: Schema.Number }
