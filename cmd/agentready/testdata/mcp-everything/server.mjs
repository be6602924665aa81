// MCP's reference server, @modelcontextprotocol/server-everything, in its
// streamable HTTP mode, as agentready serve's MCP test
// (cmd/agentready/mcp_everything_test.go) starts it behind the proxy.
//
// The package's streamable HTTP mode is a module that listens when it is
// imported (dist/transports/streamableHttp.js: app.listen(PORT), with no
// host, so on every interface) and exports no app: the tests listen on
// 127.0.0.1 only. So the module runs as shipped (its Express app, its map
// of sessions, its event store) and only its one listen is given another
// address: 127.0.0.1 and a free port, which this prints.
//
// Usage: node server.mjs; it prints "listening PORT" once it listens on a
// free 127.0.0.1 port.
import net from 'node:net'

const listen = net.Server.prototype.listen
net.Server.prototype.listen = function (port, ...rest) {
  net.Server.prototype.listen = listen // the package's app.listen alone
  if (String(port) !== process.env.PORT) {
    throw new Error('server-everything listened on ' + port + ', not its PORT ' + process.env.PORT)
  }
  const done = rest.find((a) => typeof a === 'function')
  this.once('listening', () => console.log('listening ' + this.address().port))
  return done ? listen.call(this, 0, '127.0.0.1', done) : listen.call(this, 0, '127.0.0.1')
}
process.env.PORT = '0'
await import('@modelcontextprotocol/server-everything/dist/transports/streamableHttp.js')
