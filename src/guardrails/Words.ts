/** A guardrail's trigger in words (`aeon run`, `aeon inspect`, the viewer): which, where, what it did — never the text. */
export interface TriggerSaid {
  readonly point: string
  readonly guardrail: string
  readonly action: string
  readonly kinds: ReadonlyArray<string>
  readonly placeholders?: ReadonlyArray<string> | undefined
  readonly stepId?: string | null | undefined
}

export const triggerInWords = (t: TriggerSaid) =>
  `guardrail ${t.guardrail} ${t.action === "block" ? "blocked" : "redacted"} ${t.kinds.join(", ")} at the ` +
  `${t.point.replace("_", " ")}${t.stepId ? ` (step ${t.stepId})` : ""}${
    t.placeholders && t.placeholders.length > 0 ? `: ${t.placeholders.join(", ")}` : ""
  }`
