/** The run viewer's page: the bundled script and its styles (served at /runs and /runs/:id, no CDN). */
export const viewerPage = (scriptPath: string) =>
  `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Aeon · runs</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<style>
body { font: 14px/1.45 system-ui, sans-serif; margin: 0; color: #1d2330; background: #f7f8fa; }
main { max-width: 1200px; margin: 0 auto; padding: 16px 24px 48px; }
h1 { font-size: 20px; margin: 8px 0; } h2 { font-size: 15px; margin: 20px 0 8px; text-transform: uppercase; letter-spacing: .04em; color: #556; }
section { background: #fff; border: 1px solid #e2e5ea; border-radius: 8px; padding: 8px 16px 12px; margin: 12px 0; overflow-x: auto; }
table { border-collapse: collapse; width: 100%; background: #fff; } td, th { text-align: left; padding: 6px 8px; border-bottom: 1px solid #eee; }
.status { font-weight: 600; } .CONVERGED { color: #1a7f37; } .FAILED, .CANCELLED { color: #c62828; } .NOT_CONVERGED { color: #b26a00; } .RUNNING, .AWAITING_INPUT, .QUEUED { color: #1f5fbf; }
.error { color: #c62828; } .filters { display: flex; gap: 8px; margin: 8px 0; }
.gauge { display: grid; grid-template-columns: 80px 240px 1fr; align-items: center; gap: 8px; margin: 4px 0; }
.bar { background: #eef0f3; height: 10px; border-radius: 5px; overflow: hidden; } .fill { background: #4f7cd6; height: 100%; }
.row { display: grid; grid-template-columns: 120px 1fr 80px 100px; gap: 8px; align-items: center; margin: 2px 0; }
.fork { font-size: 11px; padding: 1px 6px; color: #1f5fbf; background: #fff; border: 1px solid #c5d3ee; border-radius: 4px; }
.phase .label { padding-left: 12px; color: #556; } .step .label { padding-left: 24px; color: #556; }
.track { background: #f2f3f6; height: 12px; position: relative; border-radius: 3px; }
.span { height: 12px; border-radius: 3px; background: #9db4e8; } .pass-bar { background: #4f7cd6; }
.step-complete { background: #4caf50; } .step-failed, .step-abandoned { background: #e53935; } .step-invalid { background: #fb8c00; } .step-running { background: #90caf9; } .step-waiting-for-approval { background: #fbc02d; }
.node rect { fill: #eef0f3; stroke: #9aa3af; } .node.complete rect { fill: #e5f4e8; stroke: #4caf50; } .node.failed rect { fill: #fdecea; stroke: #e53935; }
.node.invalid rect { fill: #fff3e0; stroke: #fb8c00; } .node.running rect { fill: #e3f0ff; stroke: #1f5fbf; } .node.superseded { opacity: .45; } .node.superseded rect { stroke-dasharray: 4 3; }
.node text { font-size: 11px; fill: #1d2330; } .node text.id { font-weight: 600; }
.score.completeness { fill: #4f7cd6; } .score.coherence { fill: #4caf50; } .score.consistency { fill: #fb8c00; } svg text { font-size: 11px; }
pre { white-space: pre-wrap; background: #f6f8fa; padding: 8px; border-radius: 4px; max-height: 320px; overflow: auto; }
button { cursor: pointer; } [data-testid=call] { background: none; border: none; color: #1f5fbf; padding: 2px 0; text-align: left; }
.new-run { display: grid; gap: 6px; background: #fff; border: 1px solid #e2e5ea; border-radius: 8px; padding: 8px 16px 12px; margin: 12px 0; }
.new-run textarea { min-height: 48px; font: inherit; } .new-run h2 { margin: 4px 0; } .tokens { color: #556; margin: 6px 0 0; }
.issue.HIGH, .issue.CRITICAL { color: #c62828; } .key { max-width: 420px; margin: 80px auto; }
button, select, input, textarea { font: inherit; color: inherit; border: 1px solid #c9cfd8; border-radius: 6px; background: #fff; padding: 5px 10px; }
button:not([data-testid=call]):not(.fork):not(.secondary) { background: #1f5fbf; border-color: #1f5fbf; color: #fff; font-weight: 600; }
button:not([data-testid=call]):not(.fork):not(.secondary):hover { background: #184c99; } [data-testid=call]:hover { text-decoration: underline; }
button:disabled { background: #9aa3af; border-color: #9aa3af; cursor: default; }
.answers { display: flex; gap: 16px; align-items: center; margin: 8px 0; }
button.secondary, button.fork { background: #fff; color: #1f5fbf; border-color: #c5d3ee; font-weight: 400; }
select:focus, input:focus, textarea:focus, button:focus-visible { outline: 2px solid #9db4e8; outline-offset: 1px; }
.legend { display: flex; gap: 14px; font-size: 12px; color: #556; margin: 4px 0; } .legend i { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 4px; vertical-align: -1px; }
</style>
</head>
<body><div id="app"></div><script type="module" src="${scriptPath}"></script></body>
</html>
`
