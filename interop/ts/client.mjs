// Drives mcpkit's server (interop/server: the reference server plus a few
// interop tools) with a real TypeScript SDK client and checks what the
// client sees.
//
//   node ts/client.mjs v1|v2 stdio SERVER_BINARY
//   node ts/client.mjs v1|v2 http  http://127.0.0.1:PORT/mcp
//   node ts/client.mjs v1    sse   http://127.0.0.1:PORT/sse   (2024-11-05 HTTP+SSE)
//
// Prints one line per check (ok, skip or FAIL) and a summary line
// "interop <sdk> <transport>: N passed, M failed, K skipped". A check is
// skipped only when the server does not have the feature yet (no
// capability, no fixture tool, or the method answers -32601), and only
// with INTEROP_ALLOW_SKIP=1 outside CI; otherwise such a check fails
// (harness.mjs). Exits 1 if a check failed.
import assert from 'node:assert/strict';
import { load } from './sdk.mjs';
import { Skip, fill, harness, httpStatus, signal, textOf, until } from './harness.mjs';

const [generation, transportKind, target] = process.argv.slice(2);
if (!generation || !['stdio', 'http', 'sse'].includes(transportKind) || !target) {
  console.error('usage: node ts/client.mjs v1|v2 stdio SERVER_BINARY | http URL | sse URL (v1)');
  process.exit(2);
}
const sdk = await load(generation);
const label = `${generation}/${transportKind}`;
const { check, summary } = harness(label);
const clientInfo = { name: `mcpkit-interop-${generation}`, version: '1.0.0' };
const PROTOCOL = '2025-11-25';

function newTransport(opts) {
  if (transportKind === 'sse') {
    if (!sdk.sse) throw new Error(`${sdk.package} has no HTTP+SSE client transport`);
    return sdk.sse(target);
  }
  return transportKind === 'stdio' ? sdk.stdio(target, []) : sdk.http(target, opts);
}

// A connected client with sampling and elicitation handlers and a record
// of the notifications it received.
async function connect({ capabilities = { sampling: {}, elicitation: {} }, extra, http } = {}) {
  const client = sdk.newClient(clientInfo, capabilities, extra);
  const seen = { logs: [], sampling: [], elicitation: [], updated: [] };
  if (capabilities.sampling) {
    sdk.onRequest(client, 'sampling/createMessage', async (req) => {
      seen.sampling.push(req.params);
      return { role: 'assistant', content: { type: 'text', text: 'interop sampled answer' }, model: 'interop-model', stopReason: 'endTurn' };
    });
  }
  if (capabilities.elicitation) {
    sdk.onRequest(client, 'elicitation/create', async (req) => {
      seen.elicitation.push(req.params);
      return { action: 'accept', content: fill(req.params.requestedSchema) };
    });
  }
  sdk.onNotification(client, 'notifications/message', async (n) => { seen.logs.push(n.params); signal(); });
  sdk.onNotification(client, 'notifications/resources/updated', async (n) => { seen.updated.push(n.params); signal(); });
  const transport = newTransport(http);
  await client.connect(transport);
  return { client, transport, seen };
}

// notYet turns "the server does not have this yet" into a Skip.
async function notYet(what, promise) {
  try {
    return await promise;
  } catch (e) {
    if (e?.code === -32601) throw new Skip(`not yet: ${what} answers -32601 Method not found`);
    throw e;
  }
}

const main = await connect();
const { client } = main;
const caps = client.getServerCapabilities() ?? {};
const tools = new Map();
const needTool = (name) => {
  if (!tools.has(name)) throw new Skip(`not yet: the server has no ${name} tool`);
};
const needCapability = (name) => {
  if (!caps[name]) throw new Skip(`not yet: the server declares no ${name} capability`);
};

await check('initialize: server info, version, capabilities', async () => {
  assert.equal(client.getServerVersion()?.name, 'mcpkit-everything');
  const version = sdk.protocolVersion(client, main.transport);
  if (version !== undefined) assert.equal(version, PROTOCOL);
  assert.ok(caps.tools, 'tools capability');
});

await check('ping', async () => {
  assert.deepEqual(await client.ping(), {});
});

await check('tools/list', async () => {
  const res = await client.listTools();
  for (const t of res.tools) tools.set(t.name, t);
  for (const name of ['echo', 'test_simple_text', 'interop_structured', 'interop_slow']) assert.ok(tools.has(name), `${name} listed`);
  for (const t of res.tools) {
    assert.equal(t.inputSchema?.type, 'object', `${t.name} inputSchema type`);
    assert.ok(t.description, `${t.name} description`);
  }
  assert.equal(tools.get('interop_structured').outputSchema?.type, 'object', 'outputSchema');
});

await check('tools/call: text', async () => {
  const res = await sdk.callTool(client, { name: 'echo', arguments: { text: 'hi from TypeScript' } });
  assert.equal(res.isError ?? false, false);
  assert.equal(textOf(res), 'hi from TypeScript');
});

await check('tools/call: structured output checked against outputSchema', async () => {
  const res = await sdk.callTool(client, { name: 'interop_structured', arguments: { a: 6, b: 7 } });
  assert.deepEqual(res.structuredContent, { sum: 13, product: 42 });
  assert.deepEqual(JSON.parse(textOf(res)), { sum: 13, product: 42 });
});

await check('tools/call: invalid arguments are a tool error (isError)', async () => {
  const res = await sdk.callTool(client, { name: 'echo', arguments: { text: 42 } });
  assert.equal(res.isError, true);
  assert.match(textOf(res), /^invalid arguments for tool echo: /);
});

await check('tools/call: unknown tool is a -32602 protocol error', async () => {
  await assert.rejects(sdk.callTool(client, { name: 'no_such_tool', arguments: {} }), (e) => e.code === -32602);
});

await check('tools/call: image, audio and embedded resource contents', async () => {
  const mixed = await sdk.callTool(client, { name: 'test_multiple_content_types', arguments: {} });
  assert.deepEqual(mixed.content.map((c) => c.type), ['text', 'image', 'resource']);
  assert.equal(mixed.content[1].mimeType, 'image/png');
  assert.equal(mixed.content[2].resource.uri, 'test://mixed-content-resource');
  const audio = await sdk.callTool(client, { name: 'test_audio_content', arguments: {} });
  assert.equal(audio.content[0].type, 'audio');
  assert.equal(audio.content[0].mimeType, 'audio/wav');
});

await check('tools/call: a tool that reports an error', async () => {
  const res = await sdk.callTool(client, { name: 'test_error_handling', arguments: {} });
  assert.equal(res.isError, true);
  assert.ok(textOf(res).length > 0);
});

await check('resources: list, read text and blob', async () => {
  needCapability('resources');
  const list = await notYet('resources/list', client.listResources());
  const uris = list.resources.map((r) => r.uri);
  assert.ok(uris.includes('test://static-text'), `static-text listed in ${uris}`);
  const text = await client.readResource({ uri: 'test://static-text' });
  assert.equal(text.contents[0].text, 'This is the content of the static text resource.');
  const blob = await client.readResource({ uri: 'test://static-binary' });
  assert.equal(blob.contents[0].mimeType, 'image/png');
  assert.ok(blob.contents[0].blob.length > 0);
});

await check('resources: templates list and read', async () => {
  needCapability('resources');
  const list = await notYet('resources/templates/list', client.listResourceTemplates());
  assert.ok(list.resourceTemplates.some((t) => t.uriTemplate === 'test://template/{id}/data'));
  const res = await client.readResource({ uri: 'test://template/4711/data' });
  assert.equal(res.contents[0].uri, 'test://template/4711/data');
  assert.match(res.contents[0].text, /4711/);
});

await check('resources: subscribe, updated notification, unsubscribe', async () => {
  needCapability('resources');
  if (!caps.resources.subscribe) throw new Skip('not yet: the server declares no resources.subscribe');
  const uri = 'test://watched-resource';
  assert.deepEqual(await notYet('resources/subscribe', client.subscribeResource({ uri })), {});
  const before = main.seen.updated.length;
  // The interop server announces a change; the notification comes on the
  // standalone stream (the GET stream over HTTP).
  assert.equal(textOf(await sdk.callTool(client, { name: 'interop_touch_watched', arguments: {} })), 'touched');
  await until(() => main.seen.updated.length > before);
  assert.deepEqual(main.seen.updated.slice(before).map((p) => p.uri), [uri]);
  assert.deepEqual(await client.unsubscribeResource({ uri }), {});
});

await check('prompts: list and get with arguments', async () => {
  needCapability('prompts');
  const list = await notYet('prompts/list', client.listPrompts());
  assert.ok(list.prompts.some((p) => p.name === 'test_prompt_with_arguments'));
  const res = await client.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'alpha', arg2: 'beta' } });
  const text = res.messages.map((m) => m.content.text ?? '').join('\n');
  assert.match(text, /alpha/);
  assert.match(text, /beta/);
});

await check('completion/complete', async () => {
  needCapability('completions');
  const res = await notYet('completion/complete', client.complete({
    ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
    argument: { name: 'arg1', value: 'te' },
  }));
  assert.ok(Array.isArray(res.completion.values));
});

await check('progress notifications during a call', async () => {
  needTool('test_tool_with_progress');
  const progress = [];
  const res = await sdk.callTool(client, { name: 'test_tool_with_progress', arguments: {} }, { onprogress: (p) => progress.push(p.progress) });
  assert.equal(res.isError ?? false, false);
  // The server sends 0, 50 and 100, all before the result. Over stdio the
  // SDK dispatches notifications a microtask later but settles a response
  // at once, and drops the progress handler when it does: a notification
  // read in the same chunk as the result (here the last, sent right
  // before it) is lost on the client's side.
  const want = [0, 50, 100];
  if (transportKind === 'http') assert.deepEqual(progress, want);
  else assert.ok(progress.length >= 2 && progress.every((p, i) => p === want[i]), `progress ${progress}`);
});

await check('logging: setLevel and log messages during a call', async () => {
  needCapability('logging');
  needTool('test_tool_with_logging');
  assert.deepEqual(await notYet('logging/setLevel', client.setLoggingLevel('debug')), {});
  const before = main.seen.logs.length;
  const res = await sdk.callTool(client, { name: 'test_tool_with_logging', arguments: {} });
  assert.equal(res.isError ?? false, false);
  // Notifications sent during a call arrive before its result.
  assert.ok(main.seen.logs.length - before >= 3, `got ${main.seen.logs.length - before} log messages`);
});

await check('sampling round trip', async () => {
  needTool('test_sampling');
  const before = main.seen.sampling.length;
  const res = await sdk.callTool(client, { name: 'test_sampling', arguments: { prompt: 'What is interop?' } });
  assert.equal(main.seen.sampling.length - before, 1, 'one sampling/createMessage');
  assert.equal(main.seen.sampling.at(-1).messages[0].content.text, 'What is interop?');
  assert.match(textOf(res), /interop sampled answer/);
});

await check('elicitation round trip', async () => {
  needTool('test_elicitation');
  const before = main.seen.elicitation.length;
  const res = await sdk.callTool(client, { name: 'test_elicitation', arguments: { message: 'Who are you?' } });
  assert.equal(main.seen.elicitation.length - before, 1, 'one elicitation/create');
  assert.equal(main.seen.elicitation.at(-1).message, 'Who are you?');
  assert.match(textOf(res), /accept/);
});

await check('cancellation reaches the tool handler', async () => {
  const id = `${label}-${process.pid}`;
  const abort = new AbortController();
  // interop_slow reports progress once it runs; cancel then.
  const call = sdk.callTool(client, { name: 'interop_slow', arguments: { id } }, {
    signal: abort.signal,
    onprogress: () => abort.abort('interop cancel'),
  });
  await assert.rejects(call);
  const res = await sdk.callTool(client, { name: 'interop_cancelled', arguments: { id } });
  assert.equal(textOf(res), 'cancelled');
});

await check('duplicate initialize is an error; the session goes on', async () => {
  // The v2 HTTP transport drops Mcp-Session-Id from an initialize request
  // (it starts a new session instead); put it back so that the server
  // sees a true duplicate on the live session.
  let sessionId;
  const fetchKeepingSession = (url, init) => {
    const headers = new Headers(init?.headers);
    if (sessionId && !headers.has('mcp-session-id') && /"method":"initialize"/.test(String(init?.body))) {
      headers.set('mcp-session-id', sessionId);
      headers.set('mcp-protocol-version', PROTOCOL);
    }
    return fetch(url, { ...init, headers });
  };
  const s = await connect({ http: { fetch: fetchKeepingSession } });
  sessionId = s.transport.sessionId;
  await assert.rejects(sdk.request(s.client, {
    method: 'initialize',
    params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo },
  }), (e) => (transportKind === 'http' ? httpStatus(e) === 400 : e.code === -32600));
  assert.equal(s.transport.sessionId, sessionId, 'session id unchanged');
  assert.deepEqual(await s.client.ping(), {});
  await s.client.close();
});

if (transportKind === 'sse') {
  await check('HTTP+SSE: a second stream is a second session; an unknown session is refused 404', async () => {
    const other = await connect();
    const a = main.transport._endpoint, b = other.transport._endpoint;
    assert.ok(a && b, 'both endpoints known');
    assert.equal(a.origin, new URL(target).origin);
    assert.match(a.searchParams.get('sessionId') ?? '', /^[A-Z2-7]{26}$/, 'a 130-bit session id');
    assert.notEqual(a.searchParams.get('sessionId'), b.searchParams.get('sessionId'));
    assert.deepEqual(await other.client.ping(), {});
    await other.client.close();
    const gone = new URL(a);
    gone.searchParams.set('sessionId', 'NO-SUCH-SESSION');
    const res = await fetch(gone, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' });
    assert.equal(res.status, 404);
    assert.equal((await res.json()).error.code, -32001);
  });
}

if (transportKind === 'http') {
  await check('session deleted (DELETE), then refused with 404', async () => {
    const { client: c, transport } = await connect();
    const sessionId = transport.sessionId;
    assert.match(sessionId ?? '', /^[\x21-\x7e]+$/, 'a visible-ASCII session id');
    await transport.terminateSession();
    await c.close();
    // A transport that resumes the deleted session skips initialize.
    const stale = sdk.newClient(clientInfo, {});
    await stale.connect(sdk.http(target, { sessionId }));
    await assert.rejects(stale.ping(), (e) => httpStatus(e) === 404);
    await stale.close().catch(() => {});
  });
}

await client.close();
process.exit(summary(sdk.package, transportKind));
