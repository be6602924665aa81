// The TypeScript SDK's MCP client (@modelcontextprotocol/sdk: Client over
// StreamableHTTPClientTransport), as agentready serve's MCP test
// (cmd/agentready/mcp_everything_test.go) runs it through the proxy: it
// connects as the agent whose User-Agent it is given (the SDK's legacy
// initialize, a session, no Mcp-Method or Mcp-Name), runs the steps, and
// prints one JSON line for each, for the test to read:
//
//	{"op":"connect","ok":true,"protocolVersion":"2025-11-25","session":true}
//	{"op":"list","ok":true,"tools":["echo",...]}
//	{"op":"call","tool":"echo","ok":true,"isError":false,"content":[...]}
//	{"op":"call","tool":"get-sum","ok":false,"error":{"name":...,"code":403,"message":...},
//	 "http":{"status":403,"retryAfter":null}}
//	{"op":"close","ok":true}
//
// A step that fails prints its error as the SDK gives it (its class, its
// code, its message), with the status and Retry-After of the step's POST
// as the transport's fetch saw them (the SDK's error has no headers), and
// the steps go on, on the same session: whether the session survives a
// refusal is what the test asks. A connect that fails ends the steps.
//
// Usage: node client.mjs URL USER-AGENT STEPS, where STEPS is a JSON
// array of {"op":"list"} and {"op":"call","tool":NAME,"args":{...}}.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'

const [url, userAgent, stepsJSON] = process.argv.slice(2)
const steps = JSON.parse(stepsJSON)

function out (line) {
  process.stdout.write(JSON.stringify(line) + '\n')
}

function failure (err) {
  return { name: err?.constructor?.name, code: err?.code, message: String(err?.message ?? err), data: err?.data }
}

// lastPost is the answer to the last POST: the steps run one at a time,
// and the SDK's GET stream, which runs beside them, is not a POST.
let lastPost
async function recordingFetch (input, init) {
  const res = await fetch(input, init)
  if (init?.method === 'POST') {
    lastPost = { status: res.status, retryAfter: res.headers.get('retry-after') }
  }
  return res
}

const transport = new StreamableHTTPClientTransport(new URL(url), {
  fetch: recordingFetch,
  requestInit: { headers: { 'User-Agent': userAgent } }
})
const client = new Client({ name: 'agentready-test', version: '1.0.0' })
client.onerror = (err) => process.stderr.write('transport error: ' + JSON.stringify(failure(err)) + '\n')

try {
  await client.connect(transport)
  out({ op: 'connect', ok: true, protocolVersion: transport.protocolVersion, session: transport.sessionId !== undefined })
} catch (err) {
  out({ op: 'connect', ok: false, error: failure(err), http: lastPost })
  await client.close().catch(() => {})
  process.exit(0)
}

for (const step of steps) {
  lastPost = undefined
  try {
    if (step.op === 'list') {
      const res = await client.listTools()
      out({ op: 'list', ok: true, tools: res.tools.map((t) => t.name) })
    } else if (step.op === 'call') {
      const res = await client.callTool({ name: step.tool, arguments: step.args ?? {} })
      out({ op: 'call', tool: step.tool, ok: true, isError: res.isError === true, content: res.content })
    } else {
      throw new Error('unknown step ' + JSON.stringify(step))
    }
  } catch (err) {
    out({ op: step.op, tool: step.tool, ok: false, error: failure(err), http: lastPost })
  }
}

try {
  await transport.terminateSession()
  await client.close()
  out({ op: 'close', ok: true })
} catch (err) {
  out({ op: 'close', ok: false, error: failure(err) })
}
