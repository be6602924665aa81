// The TypeScript SDK's MCP client (@modelcontextprotocol/sdk: Client over
// StreamableHTTPClientTransport) against agentready's gateway, as
// gateway_clients_test.go runs it: it connects with the headers it is
// given (User-Agent, Authorization, X-Agent-Session), runs the steps, and
// prints one JSON line for each, for the test to read. Every tool's
// inputSchema and outputSchema, as the client received them, is checked
// by Ajv as JSON Schema 2020-12: against the 2020-12 meta-schema, and
// compiled in strict mode; a call's arguments and structured content are
// validated with them.
//
//	{"op":"connect","ok":true,"protocolVersion":"2025-11-25","session":false}
//	{"op":"tools","ok":true,"tools":[{...}],"schemas":{"search_products":{"input":[],"output":[]}}}
//	{"op":"call","tool":"search_products","ok":true,"isError":false,"content":[...],
//	 "structuredContent":{...},"argsErrors":[],"outputErrors":[]}
//	{"op":"prompts","ok":true,"prompts":[...]}
//	{"op":"prompt","name":"buy","ok":true,"messages":[...]}
//	{"op":"resources","ok":true,"resources":[...]}
//	{"op":"read","uri":"...","ok":true,"contents":[...]}
//
// A step that fails prints its error as the SDK gives it (its class, its
// code, its message) and the steps go on. A connect that fails ends them.
//
// Usage: node client.mjs URL HEADERS STEPS, where HEADERS is a JSON object
// of header fields and STEPS a JSON array of {"op":"tools"},
// {"op":"call","tool":NAME,"args":{...}}, {"op":"prompts"},
// {"op":"prompt","name":NAME}, {"op":"resources"}, {"op":"read","uri":URI}.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import Ajv2020 from 'ajv/dist/2020.js'

const [url, headersJSON, stepsJSON] = process.argv.slice(2)
const headers = JSON.parse(headersJSON)
const steps = JSON.parse(stepsJSON)

function out (line) {
  process.stdout.write(JSON.stringify(line) + '\n')
}

function failure (err) {
  return { name: err?.constructor?.name, code: err?.code, message: String(err?.message ?? err), data: err?.data }
}

// strict: an unknown keyword or format is an error, as in
// testdata/ajv/validate.mjs.
const ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false, strictRequired: false })
const validators = {}

// schemaErrors checks one schema as 2020-12: the meta-schema's verdict,
// then whether Ajv compiles it strictly. It keeps the validator.
function schemaErrors (tool, kind, schema) {
  if (schema === undefined) return []
  const errs = []
  if (!ajv.validateSchema(schema)) {
    errs.push(...ajv.errors.map((e) => `meta-schema: ${e.instancePath || '/'} ${e.message}`))
  }
  try {
    validators[tool + '/' + kind] = ajv.compile(schema)
  } catch (e) {
    errs.push('compile: ' + e.message)
  }
  return errs
}

function validate (tool, kind, value) {
  const v = validators[tool + '/' + kind]
  if (v === undefined || value === undefined) return []
  return v(value) ? [] : v.errors.map((e) => `${e.instancePath || '/'} ${e.message}`)
}

const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } })
const client = new Client({ name: 'agentready-gateway-test', version: '1.0.0' })
client.onerror = (err) => process.stderr.write('transport error: ' + JSON.stringify(failure(err)) + '\n')

try {
  await client.connect(transport)
  out({ op: 'connect', ok: true, protocolVersion: transport.protocolVersion, session: transport.sessionId !== undefined })
} catch (err) {
  out({ op: 'connect', ok: false, error: failure(err) })
  await client.close().catch(() => {})
  process.exit(0)
}

for (const step of steps) {
  try {
    if (step.op === 'tools') {
      const res = await client.listTools()
      const schemas = {}
      for (const t of res.tools) {
        schemas[t.name] = { input: schemaErrors(t.name, 'input', t.inputSchema), output: schemaErrors(t.name, 'output', t.outputSchema) }
      }
      out({ op: 'tools', ok: true, tools: res.tools, schemas })
    } else if (step.op === 'call') {
      const args = step.args ?? {}
      const res = await client.callTool({ name: step.tool, arguments: args })
      out({
        op: 'call',
        tool: step.tool,
        ok: true,
        isError: res.isError === true,
        content: res.content,
        structuredContent: res.structuredContent,
        argsErrors: validate(step.tool, 'input', args),
        outputErrors: validate(step.tool, 'output', res.structuredContent)
      })
    } else if (step.op === 'prompts') {
      out({ op: 'prompts', ok: true, prompts: (await client.listPrompts()).prompts })
    } else if (step.op === 'prompt') {
      out({ op: 'prompt', name: step.name, ok: true, messages: (await client.getPrompt({ name: step.name })).messages })
    } else if (step.op === 'resources') {
      out({ op: 'resources', ok: true, resources: (await client.listResources()).resources })
    } else if (step.op === 'read') {
      out({ op: 'read', uri: step.uri, ok: true, contents: (await client.readResource({ uri: step.uri })).contents })
    } else {
      throw new Error('unknown step ' + JSON.stringify(step))
    }
  } catch (err) {
    out({ op: step.op, tool: step.tool, ok: false, error: failure(err) })
  }
}

await client.close()
out({ op: 'close', ok: true })
