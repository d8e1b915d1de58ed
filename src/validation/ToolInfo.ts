/** What validation, planning and prompts know of a tool. */
export interface ToolInfo {
  readonly name: string
  readonly description: string
  readonly operations?: ReadonlyArray<string> | undefined
  /** Words that describe what the tool does; derived from name and description when absent. */
  readonly keywords?: ReadonlyArray<string> | undefined
}
