// One face for both generations of the TypeScript MCP SDK, so that the
// same checks (client.mjs) run with each:
//   v1: @modelcontextprotocol/sdk 1.x, one package, handlers keyed by zod schemas;
//   v2: @modelcontextprotocol/client 2.x, handlers keyed by method names.
// Only what the checks use is wrapped.

export async function load(generation) {
  if (generation === 'v1') {
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
    const { SSEClientTransport } = await import('@modelcontextprotocol/sdk/client/sse.js');
    const t = await import('@modelcontextprotocol/sdk/types.js');
    const requests = {
      'sampling/createMessage': t.CreateMessageRequestSchema,
      'elicitation/create': t.ElicitRequestSchema,
      'roots/list': t.ListRootsRequestSchema,
    };
    const notifications = {
      'notifications/message': t.LoggingMessageNotificationSchema,
      'notifications/resources/updated': t.ResourceUpdatedNotificationSchema,
    };
    return {
      generation,
      package: '@modelcontextprotocol/sdk',
      newClient: (info, capabilities) => new Client(info, { capabilities }),
      stdio: (command, args) => new StdioClientTransport({ command, args, stderr: 'inherit' }),
      http: (url, opts = {}) => new StreamableHTTPClientTransport(new URL(url), opts),
      // The 2024-11-05 HTTP+SSE transport (v1 only; v2 dropped it).
      sse: (url, opts = {}) => new SSEClientTransport(new URL(url), opts),
      onRequest: (client, method, fn) => client.setRequestHandler(requests[method], fn),
      onNotification: (client, method, fn) => client.setNotificationHandler(notifications[method], fn),
      callTool: (client, params, opts) => client.callTool(params, undefined, opts),
      request: (client, req) => client.request(req, req.method === 'initialize' ? t.InitializeResultSchema : t.ResultSchema),
      // The version the client negotiated, where the SDK exposes it.
      protocolVersion: (client, transport) => transport.protocolVersion,
    };
  }
  if (generation === 'v2') {
    const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
    const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
    return {
      generation,
      package: '@modelcontextprotocol/client',
      newClient: (info, capabilities, extra = {}) => new Client(info, { capabilities, ...extra }),
      stdio: (command, args) => new StdioClientTransport({ command, args, stderr: 'inherit' }),
      http: (url, opts = {}) => new StreamableHTTPClientTransport(new URL(url), opts),
      onRequest: (client, method, fn) => client.setRequestHandler(method, fn),
      onNotification: (client, method, fn) => client.setNotificationHandler(method, fn),
      callTool: (client, params, opts) => client.callTool(params, opts),
      request: (client, req) => client.request(req),
      protocolVersion: (client) => client.getNegotiatedProtocolVersion(),
    };
  }
  throw new Error(`unknown SDK generation ${generation} (want v1 or v2)`);
}
