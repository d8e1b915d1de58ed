import { gql, waitFor } from "./server.js"

export type Delivery = {
  readonly event: string
  readonly attempt: number
  readonly httpStatus: number | null
  readonly error: string | null
  readonly delivered: boolean
}

/**
 * A run's webhook delivery attempts (`fields` of each) once `wanted` holds of them. An attempt is written when the
 * receiver's answer has come back — after the POST a test saw, and announced by nothing (no event, no notification) —,
 * so this is the one wait on deliveries that reads them again until they are there.
 */
export const deliveriesOnRecord = (
  url: string,
  id: string,
  wanted: (deliveries: ReadonlyArray<Delivery>) => boolean,
  fields = "event attempt httpStatus error delivered"
) =>
  waitFor(async () => {
    const run = (await gql(url, `query($id: ID!) { run(id: $id) { webhookDeliveries { ${fields} } } }`, { id })).body
      .data!.run
    return wanted(run.webhookDeliveries) ? run.webhookDeliveries as ReadonlyArray<Delivery> : undefined
  })

/** Once one of them is on record as delivered. */
export const delivered = (deliveries: ReadonlyArray<Delivery>) => deliveries.some((d) => d.delivered)
