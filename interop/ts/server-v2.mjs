// A small MCP server written with v2 of the TypeScript SDK
// (@modelcontextprotocol/server), for mcpkit's client to talk to
// (interop/tsserver_test.go).
//
//   node ts/server-v2.mjs stdio
//   node ts/server-v2.mjs http     # logs "url=http://127.0.0.1:PORT/mcp" on stderr
//
// Over HTTP it keeps one server and one Streamable HTTP transport per
// session, as the SDK's stateful examples do, on 127.0.0.1 and a free port;
// a request for an unknown (or deleted) session gets 404.
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { McpServer, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';

function createServer() {
  const server = new McpServer({ name: 'mcpkit-interop-ts-v2', version: '1.0.0' }, { capabilities: { logging: {} } });

  server.registerTool('echo', {
    description: 'Returns the text it is given.',
    inputSchema: z.object({ text: z.string() }),
  }, async ({ text }) => ({ content: [{ type: 'text', text }] }));

  server.registerTool('add', {
    description: 'Adds two numbers; the result is structuredContent.',
    inputSchema: z.object({ a: z.number(), b: z.number() }),
    outputSchema: z.object({ sum: z.number() }),
  }, async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }], structuredContent: { sum: a + b } }));

  server.registerTool('progress_and_log', {
    description: 'Sends three progress notifications and three log messages, then returns.',
    inputSchema: z.object({}),
  }, async (_args, ctx) => {
    const token = ctx.mcpReq._meta?.progressToken;
    for (let i = 1; i <= 3; i++) {
      if (token !== undefined) {
        await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: i, total: 3 } });
      }
      await ctx.mcpReq.log('info', `step ${i}`);
    }
    return { content: [{ type: 'text', text: 'done' }] };
  });

  // wait_for_cancel reports progress once it runs, then waits for the
  // client to cancel it; was_cancelled waits for that and says so.
  let cancelled;
  const sawCancel = new Promise((resolve) => { cancelled = resolve; });
  server.registerTool('wait_for_cancel', {
    description: 'Reports progress 0, then waits until the call is cancelled.',
    inputSchema: z.object({}),
  }, async (_args, ctx) => {
    const token = ctx.mcpReq._meta?.progressToken;
    const aborted = new Promise((resolve) => ctx.mcpReq.signal.addEventListener('abort', resolve, { once: true }));
    if (token !== undefined) {
      await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: 0 } });
    }
    await aborted;
    cancelled();
    return { content: [{ type: 'text', text: 'cancelled' }] };
  });
  server.registerTool('was_cancelled', {
    description: 'Waits until wait_for_cancel has been cancelled, then says "cancelled".',
    inputSchema: z.object({}),
  }, async () => {
    await sawCancel;
    return { content: [{ type: 'text', text: 'cancelled' }] };
  });

  server.registerTool('ask_sampling', {
    description: 'Asks the client to sample a message and returns its text.',
    inputSchema: z.object({ prompt: z.string() }),
  }, async ({ prompt }, ctx) => {
    const res = await ctx.mcpReq.requestSampling({ messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens: 50 });
    return { content: [{ type: 'text', text: `sampled: ${res.content.text}` }] };
  });

  server.registerTool('ask_elicitation', {
    description: 'Asks the client for a name with a form and returns the answer.',
    inputSchema: z.object({}),
  }, async (_args, ctx) => {
    const res = await ctx.mcpReq.elicitInput({
      message: 'Your name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string', default: 'Ada' } }, required: ['name'] },
    });
    return { content: [{ type: 'text', text: `${res.action}: ${res.content?.name}` }] };
  });

  server.registerResource('greeting', 'interop://greeting', {
    description: 'A fixed greeting.',
    mimeType: 'text/plain',
  }, async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'Hello from TypeScript v2' }] }));

  server.registerPrompt('greet', {
    description: 'Greets someone by name.',
    argsSchema: z.object({ name: z.string() }),
  }, ({ name }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Hello, ${name}!` } }] }));

  return server;
}

async function serveHTTP() {
  const sessions = new Map();
  const httpServer = http.createServer(async (req, res) => {
    try {
      const sessionId = req.headers['mcp-session-id'];
      let transport = sessionId ? sessions.get(sessionId) : undefined;
      if (sessionId && !transport) {
        return reply(res, 404, { jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } });
      }
      if (!transport) {
        if (req.method !== 'POST') {
          return reply(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Bad Request: no session' } });
        }
        const t = new WebStandardStreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => sessions.set(id, t),
          onsessionclosed: (id) => sessions.delete(id),
        });
        await createServer().connect(t);
        transport = t;
      }
      const response = await transport.handleRequest(await toWebRequest(req));
      await sendWebResponse(res, response);
    } catch (e) {
      console.error('server-v2:', e);
      if (!res.headersSent) reply(res, 500, { jsonrpc: '2.0', id: null, error: { code: -32603, message: String(e) } });
      else res.end();
    }
  });
  httpServer.listen(0, '127.0.0.1', () => {
    console.error(`url=http://127.0.0.1:${httpServer.address().port}/mcp`);
  });
}

function reply(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

async function toWebRequest(req) {
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
  let body;
  if (req.method === 'POST') {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    body = Buffer.concat(chunks);
  }
  return new Request(`http://${req.headers.host}${req.url}`, { method: req.method, headers, body });
}

// sendWebResponse copies a fetch Response to a Node response, streaming
// its body (SSE) chunk by chunk until either side ends.
async function sendWebResponse(res, response) {
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (!response.body) return res.end();
  const reader = response.body.getReader();
  res.on('close', () => reader.cancel().catch(() => {}));
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      res.write(value);
    }
  } catch {
    // The client went away.
  }
  res.end();
}

const mode = process.argv[2] ?? 'stdio';
if (mode === 'http') {
  await serveHTTP();
} else if (mode === 'stdio') {
  await createServer().connect(new StdioServerTransport());
} else {
  console.error('usage: node ts/server-v2.mjs stdio|http');
  process.exit(2);
}
