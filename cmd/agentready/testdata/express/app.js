// An Express app as many are written, started by agentready serve's
// upstream tests (cmd/agentready/upstream_test.go) and its gateway's
// (gateway_clients_test.go) behind the proxy.
// Express's routing defaults are kept: case-insensitive, and non-strict
// about a trailing slash. method-override is set up as its README shows,
// for each override header, _method in the query and _method in a form
// body. Every route answers with X-Handler: "<handler> <method>", the
// handler that ran and the method it ran as, and with the request's
// headers as JSON, so the tests know what the bare app would run and what
// it was told. The paths of docs/enforcement.md's canonical tables that
// no route takes (/p/..., /u/..., /wiki/..., /s, /cart) run the echo
// handler, whose JSON adds the request-target as the app received it:
// req.originalUrl, the target of the request line as Node parsed it.
//
// Usage: node app.js; it prints "listening PORT" once it listens on a
// free 127.0.0.1 port.
'use strict'

const express = require('express')
const methodOverride = require('method-override')

const app = express()
app.use(express.urlencoded({ extended: false }))
app.use(methodOverride('X-HTTP-Method-Override'))
app.use(methodOverride('X-HTTP-Method'))
app.use(methodOverride('X-Method-Override'))
app.use(methodOverride('_method')) // the query's _method
app.use(methodOverride(function (req) {
  if (req.body && typeof req.body === 'object' && '_method' in req.body) {
    const m = req.body._method
    delete req.body._method
    return m
  }
}))

function handler (name) {
  return function (req, res) {
    res.set('X-Handler', name + ' ' + req.method)
    res.json({ handler: name, method: req.method, headers: req.headers })
  }
}

// The REST endpoints of the MCP gateway's declaration
// (cmd/agentready/testdata/mcp-gateway/site.yaml) answer with what the
// handler received: the request-target, the query as Express parses it,
// and the JSON body, beside the method and headers.
function received (name) {
  return function (req, res) {
    res.set('X-Handler', name + ' ' + req.method)
    res.json({ handler: name, method: req.method, target: req.originalUrl, query: req.query, body: req.body ?? null, headers: req.headers })
  }
}

// The admin area first, as the closed part of a site usually is.
app.all(['/admin', '/admin/*rest'], handler('admin'))
app.get('/api/search', handler('product-search'))
app.get('/api/gateway/search', received('product-search'))
app.post('/api/gateway/cart', express.json(), received('cart-add'))
app.get('/api/gateway/orders/:id', received('order-status'))
app.get('/api/orders/:id', handler('order-get'))
app.post('/api/orders/:id', handler('order-update'))
app.delete('/api/orders/:id', handler('order-cancel'))
app.get(/\.css$/, handler('css'))
// The catch-all of upstream_canonical_test.go.
const echoPaths = /^\/(p|u|wiki)\/|^\/(s|cart)(;|$)/
app.use(function (req, res) {
  if (echoPaths.test(req.path)) {
    res.set('X-Handler', 'echo ' + req.method)
    res.json({ handler: 'echo', method: req.method, headers: req.headers, target: req.originalUrl })
    return
  }
  res.status(404)
  handler('none')(req, res)
})

const server = app.listen(0, '127.0.0.1', function () {
  console.log('listening ' + server.address().port)
})
