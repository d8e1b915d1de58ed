import { useState } from "preact/hooks"
import { setApiKey } from "./Api.js"

/** A server that needs an API key asks for it: kept for this tab only. */
export const KeyForm = ({ onKey }: { onKey: () => void }) => {
  const [key, setKey] = useState("")
  return (
    <form
      class="key"
      onSubmit={(e) => {
        e.preventDefault()
        setApiKey(key)
        onKey()
      }}
    >
      <p>This server needs an API key. It is kept for this tab only.</p>
      <input type="password" placeholder="API key" value={key} onInput={(e) => setKey(e.currentTarget.value)} />
      <button type="submit">Open</button>
    </form>
  )
}
