// A small MCP server written with v2 of the TypeScript SDK
// (@modelcontextprotocol/server), for mcpkit's client to talk to
// (interop/tsserver_test.go), in both protocol eras.
//
//   node ts/server-v2.mjs stdio
//   node ts/server-v2.mjs http     # logs "url=http://127.0.0.1:PORT/mcp" on stderr
//
// stdio: the SDK's serveStdio entry, which serves a 2026-07-28 client
// (server/discover first, _meta on every request) and a 2025 client
// (initialize first) from one factory.
//
// HTTP, on 127.0.0.1 and a free port: requests carrying the 2026-07-28
// _meta envelope go to createMcpHandler (stateless, one server instance per
// request, legacy: 'reject'); everything else (initialize, and requests of
// a live Mcp-Session-Id) to one server and one Streamable HTTP transport
// per session, as the SDK's stateful examples do, so that the 2025 era
// keeps sessions and server-to-client requests. A request for an unknown
// (or deleted) session gets 404. The split is the one the SDK documents
// for keeping a sessionful 2025 deployment beside createMcpHandler
// (isLegacyRequest).
//
// The tools written with inputRequired (ask_*_mrtr, ask_rounds) serve both
// eras: input_required results in 2026-07-28, and server-to-client requests
// made by the SDK's legacy shim on a 2025 session.
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import {
  McpServer,
  WebStandardStreamableHTTPServerTransport,
  createMcpHandler,
  createRequestStateCodec,
  inputRequired,
  inputResponse,
  isLegacyRequest,
} from '@modelcontextprotocol/server';
import { StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio';

// Cancellation is observed across server instances (one per HTTP request
// in the 2026-07-28 era): wait_for_cancel{id} records here,
// was_cancelled{id} waits for the record.
const cancels = new Map();
function cancelled(id) {
  if (!cancels.has(id)) {
    let resolve;
    const p = new Promise((r) => { resolve = r; });
    cancels.set(id, { p, resolve });
  }
  return cancels.get(id);
}

// The multi-round tool's requestState is signed (the same key for every
// instance of this process).
const stateCodec = createRequestStateCodec({ key: randomUUID() + randomUUID() });

// createServer builds the server; toolsChanged announces a change of the
// tool list (to the session in the 2025 era, to the listen streams in the
// 2026-07-28 era).
function createServer(toolsChanged) {
  const server = new McpServer({ name: 'mcpkit-interop-ts-v2', version: '1.0.0' }, {
    capabilities: { logging: {}, tools: { listChanged: true } },
    requestState: { verify: stateCodec.verify },
  });
  toolsChanged ??= () => server.sendToolListChanged();

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
  server.registerTool('wait_for_cancel', {
    description: 'Reports progress 0, then waits until the call is cancelled.',
    inputSchema: z.object({ id: z.string().default('') }),
  }, async ({ id }, ctx) => {
    const token = ctx.mcpReq._meta?.progressToken;
    const aborted = new Promise((resolve) => ctx.mcpReq.signal.addEventListener('abort', resolve, { once: true }));
    if (token !== undefined) {
      await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: 0 } });
    }
    await aborted;
    cancelled(id).resolve();
    return { content: [{ type: 'text', text: 'cancelled' }] };
  });
  server.registerTool('was_cancelled', {
    description: 'Waits until wait_for_cancel (with the same id) has been cancelled, then says "cancelled".',
    inputSchema: z.object({ id: z.string().default('') }),
  }, async ({ id }) => {
    await cancelled(id).p;
    return { content: [{ type: 'text', text: 'cancelled' }] };
  });

  // The 2025 push style: server-to-client requests (session era only).
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

  // The multi round-trip style, for both eras.
  server.registerTool('ask_elicitation_mrtr', {
    description: 'Asks for a name (input_required, or elicitation/create on a 2025 session) and greets it.',
    inputSchema: z.object({}),
  }, async (_args, ctx) => {
    const answer = inputResponse(ctx.mcpReq.inputResponses, 'name');
    if (answer.kind !== 'elicit') {
      return inputRequired({
        inputRequests: {
          name: inputRequired.elicit({
            message: 'Your name?',
            requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
          }),
        },
      });
    }
    return { content: [{ type: 'text', text: `${answer.action}: ${answer.content?.name}` }] };
  });

  server.registerTool('ask_sampling_mrtr', {
    description: 'Asks the client to sample a message (input_required, or sampling/createMessage on a 2025 session).',
    inputSchema: z.object({ prompt: z.string() }),
  }, async ({ prompt }, ctx) => {
    const answer = inputResponse(ctx.mcpReq.inputResponses, 'llm');
    if (answer.kind !== 'sampling') {
      return inputRequired({
        inputRequests: { llm: inputRequired.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens: 50 }) },
      });
    }
    return { content: [{ type: 'text', text: `sampled: ${answer.result.content.text}` }] };
  });

  server.registerTool('ask_roots_mrtr', {
    description: "Asks for the client's roots (input_required, or roots/list on a 2025 session).",
    inputSchema: z.object({}),
  }, async (_args, ctx) => {
    const answer = inputResponse(ctx.mcpReq.inputResponses, 'roots');
    if (answer.kind !== 'roots') return inputRequired({ inputRequests: { roots: inputRequired.listRoots() } });
    return { content: [{ type: 'text', text: `roots: ${answer.roots.map((r) => r.uri).join(',')}` }] };
  });

  // ask_rounds: round 1 a name; round 2 a sampled greeting and the roots
  // together, the name carried in a signed requestState.
  server.registerTool('ask_rounds', {
    description: 'Asks for a name, then for a greeting and the roots together, and reports all three.',
    inputSchema: z.object({}),
  }, async (_args, ctx) => {
    const state = ctx.mcpReq.requestState();
    if (state === undefined) {
      const name = inputResponse(ctx.mcpReq.inputResponses, 'name');
      if (name.kind !== 'elicit') {
        return inputRequired({
          inputRequests: { name: inputRequired.elicit({ message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } }) },
        });
      }
      return inputRequired({
        inputRequests: {
          greeting: inputRequired.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: `Greet ${name.content?.name}` } }], maxTokens: 20 }),
          roots: inputRequired.listRoots(),
        },
        requestState: await stateCodec.mint({ name: name.content?.name }),
      });
    }
    const greeting = inputResponse(ctx.mcpReq.inputResponses, 'greeting');
    const roots = inputResponse(ctx.mcpReq.inputResponses, 'roots');
    if (greeting.kind !== 'sampling' || roots.kind !== 'roots') throw new Error('round 2 answers missing');
    return {
      content: [{ type: 'text', text: `name=${state.name}; greeting=${greeting.result.content.text}; roots=${roots.roots.map((r) => r.uri).join(',')}` }],
    };
  });

  server.registerTool('trigger_tools_changed', {
    description: 'Announces that the tool list changed (notifications/tools/list_changed).',
    inputSchema: z.object({}),
  }, async () => {
    await toolsChanged();
    return { content: [{ type: 'text', text: 'announced' }] };
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
  // The 2026-07-28 leg: a fresh instance per request; a tool list change
  // goes to the handler's listen streams.
  let modern;
  modern = createMcpHandler(() => createServer(() => modern.notify.toolsChanged()), {
    legacy: 'reject',
    onerror: (e) => console.error('server-v2 (2026-07-28):', e.message),
  });
  const httpServer = http.createServer(async (req, res) => {
    try {
      const abort = new AbortController();
      res.on('close', () => { if (!res.writableFinished) abort.abort(); });
      const webReq = await toWebRequest(req, abort.signal);
      const sessionId = req.headers['mcp-session-id'];
      if (!sessionId && !(await isLegacyRequest(webReq))) {
        return await sendWebResponse(res, await modern.fetch(webReq));
      }
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
      await sendWebResponse(res, await transport.handleRequest(webReq));
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

async function toWebRequest(req, signal) {
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
  let body;
  if (req.method === 'POST') {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    body = Buffer.concat(chunks);
  }
  return new Request(`http://${req.headers.host}${req.url}`, { method: req.method, headers, body, signal });
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
  serveStdio(() => createServer(), {
    transport: new StdioServerTransport(),
    onerror: (e) => console.error('server-v2:', e.message),
  });
} else {
  console.error('usage: node ts/server-v2.mjs stdio|http');
  process.exit(2);
}
