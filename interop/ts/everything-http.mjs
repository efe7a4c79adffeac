// Runs @modelcontextprotocol/server-everything's Streamable HTTP server
// (its dist/transports/streamableHttp.js, unchanged) bound to 127.0.0.1 on
// a free port, and logs "url=http://127.0.0.1:PORT/mcp" on stderr once it
// listens. The server itself calls app.listen(process.env.PORT || 3001),
// which listens on every interface; the hook below keeps it on loopback.
import net from 'node:net';

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (port, ...rest) {
  if ((typeof port === 'number' || typeof port === 'string') && typeof rest[0] === 'function') {
    this.once('listening', () => console.error(`url=http://127.0.0.1:${this.address().port}/mcp`));
    return listen.call(this, Number(port), '127.0.0.1', ...rest);
  }
  return listen.call(this, port, ...rest);
};
process.env.PORT = '0';
await import('@modelcontextprotocol/server-everything/dist/transports/streamableHttp.js');
