// Runs @modelcontextprotocol/server-everything's HTTP+SSE server of
// protocol 2024-11-05 (its dist/transports/sse.js, unchanged: the v1 SDK's
// SSEServerTransport, GET /sse and POST /message) bound to 127.0.0.1 on a
// free port, and logs "url=http://127.0.0.1:PORT/sse" on stderr once it
// listens. As in everything-http.mjs, the hook below keeps the server's
// app.listen(process.env.PORT || 3001) on loopback.
import net from 'node:net';

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (port, ...rest) {
  if ((typeof port === 'number' || typeof port === 'string') && typeof rest[0] === 'function') {
    this.once('listening', () => console.error(`url=http://127.0.0.1:${this.address().port}/sse`));
    return listen.call(this, Number(port), '127.0.0.1', ...rest);
  }
  return listen.call(this, port, ...rest);
};
process.env.PORT = '0';
await import('@modelcontextprotocol/server-everything/dist/transports/sse.js');
