// The TypeScript SDK's OAuth client (v1 and v2) against a protected
// mcpkit server (issues 12 and 13): it is refused, discovers the
// authorization server from the protected resource metadata, registers,
// authorizes with PKCE, redeems the code and then calls a tool.
//
//   node ts/client-auth.mjs v1|v2 URL ISSUER DEVSERVER_LOG [2026-07-28]
//
// URL is the protected mcpkit server's MCP endpoint; ISSUER the
// development authorization server (`mcpkit dev-auth-server`) it trusts,
// whose stderr goes to DEVSERVER_LOG (the checks count its "authorization
// granted" lines). The OAuthClientProvider keeps the client information
// and the tokens in memory; its redirectToAuthorization fetches the
// authorization URL without following the redirect (the dev server
// approves at once) and keeps the Location, whose code goes to
// transport.finishAuth. With 2026-07-28 (v2 only) the client negotiates
// with versionNegotiation 'auto': its first request, refused for want of a
// token, is the server/discover probe, and the era must be 2026-07-28.
//
// Prints one line per check and "interop <package> oauth: N passed, M
// failed, 0 skipped" (harness.mjs). Exits 1 if a check failed.
import assert from 'node:assert/strict';
import { randomUUID, createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { load } from './sdk.mjs';
import { harness, textOf } from './harness.mjs';

const MODERN = '2026-07-28';
const [generation, target, issuer, devLog, era = '2025-11-25'] = process.argv.slice(2);
if (!generation || !target || !issuer || !devLog || ![MODERN, '2025-11-25'].includes(era) || (era === MODERN && generation !== 'v2')) {
  console.error('usage: node ts/client-auth.mjs v1|v2 URL ISSUER DEVSERVER_LOG [2026-07-28 (v2 only)]');
  process.exit(2);
}
const sdk = await load(generation);
const { UnauthorizedError } = generation === 'v1'
  ? await import('@modelcontextprotocol/sdk/client/auth.js')
  : await import('@modelcontextprotocol/client');
const label = era === MODERN ? `${generation}/oauth/${MODERN}` : `${generation}/oauth`;
const { check, summary } = harness(label);
const newClient = () => sdk.newClient(clientInfo, {}, era === MODERN ? { versionNegotiation: { mode: 'auto' } } : undefined);
const url = new URL(target);
const metadataURL = `${url.origin}/.well-known/oauth-protected-resource${url.pathname}`;
const clientInfo = { name: `mcpkit-interop-oauth-${generation}`, version: '1.0.0' };
// The scope each SDK asks for: the challenge's; v2 adds offline_access,
// which the dev server lists, for a client registered with the
// refresh_token grant.
const wantScope = generation === 'v2' ? 'mcp offline_access' : 'mcp';
// The redirect URI: nothing listens there; the Location is read instead.
const redirectUrl = 'http://127.0.0.1:9/callback';

// grantsLogged counts the dev server's authorizations so far.
const grantsLogged = () => readFileSync(devLog, 'utf8').split('\n').filter((l) => l.includes('msg="devserver: authorization granted"')).length;

// An in-memory OAuthClientProvider (both SDKs' interface).
class MemoryProvider {
  constructor() {
    this.client = undefined;
    this.saved = undefined;
    this.verifier = undefined;
    this.authorizationURLs = [];
    this.callback = undefined;
    this.discovery = undefined;
    this.expectedState = randomUUID();
  }
  get redirectUrl() { return redirectUrl; }
  get clientMetadata() {
    return {
      client_name: clientInfo.name,
      redirect_uris: [redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  state() { return this.expectedState; }
  clientInformation() { return this.client; }
  saveClientInformation(info) { this.client = info; }
  tokens() { return this.saved; }
  saveTokens(tokens) { this.saved = tokens; }
  saveCodeVerifier(v) { this.verifier = v; }
  codeVerifier() { return this.verifier; }
  saveDiscoveryState(state) { this.discovery = state; }
  discoveryState() { return this.discovery; }
  // The dev server approves at once: the answer is a redirect back.
  async redirectToAuthorization(authorizationURL) {
    this.authorizationURLs.push(new URL(authorizationURL));
    const res = await fetch(authorizationURL, { redirect: 'manual' });
    const location = res.headers.get('location');
    if (res.status !== 302 || !location) throw new Error(`the authorization server answered ${res.status}, not a redirect: ${await res.text()}`);
    this.callback = new URL(location);
  }
}

// challenge parses a Bearer WWW-Authenticate header into its auth-params
// (quoted strings without escapes, as these servers send them).
function challenge(header) {
  const m = /^Bearer (.*)$/.exec(header ?? '');
  assert.ok(m, `a Bearer challenge: ${header}`);
  const params = {};
  for (const [, k, v] of m[1].matchAll(/([a-z_]+)="([^"]*)"(?:, |$)/g)) params[k] = v;
  return params;
}

// recorder is a fetch that keeps each request's method (HTTP and
// JSON-RPC) and Authorization, and the response's status and
// WWW-Authenticate.
function recorder() {
  const seen = [];
  const f = async (input, init) => {
    const res = await fetch(input, init);
    const headers = new Headers(init?.headers);
    let rpc;
    try { rpc = JSON.parse(init?.body).method; } catch { rpc = undefined; }
    seen.push({ url: String(input), method: init?.method ?? 'GET', rpc, authorization: headers.get('authorization'), status: res.status, challenge: res.headers.get('www-authenticate') });
    return res;
  };
  return { seen, fetch: f };
}

const provider = new MemoryProvider();
const first = recorder();
const grantsBefore = grantsLogged();
let transport;

await check('connect without a token: 401 with the challenge, then UnauthorizedError after the redirect', async () => {
  const client = newClient();
  transport = sdk.http(target, { authProvider: provider, fetch: first.fetch });
  await assert.rejects(client.connect(transport), (e) => e instanceof UnauthorizedError);
  const mcp = first.seen.filter((r) => r.url === target);
  assert.equal(mcp.length, 1, `one request to the MCP endpoint before authorization: ${JSON.stringify(mcp)}`);
  assert.equal(mcp[0].status, 401);
  assert.equal(mcp[0].rpc, era === MODERN ? 'server/discover' : 'initialize');
  assert.equal(mcp[0].authorization, null);
  assert.deepEqual(challenge(mcp[0].challenge), { resource_metadata: metadataURL, scope: 'mcp' });
  assert.ok(first.seen.some((r) => r.url === metadataURL && r.status === 200), `the SDK read ${metadataURL}: ${JSON.stringify(first.seen.map((r) => [r.url, r.status]))}`);
});

await check('dynamic client registration with the dev server', async () => {
  assert.match(provider.client?.client_id ?? '', /^dev-[A-Z0-9]+$/);
  assert.deepEqual(provider.client.redirect_uris, [redirectUrl]);
});

await check('authorization request: PKCE S256, state, resource (RFC 8707), the challenge\'s scope', async () => {
  assert.equal(provider.authorizationURLs.length, 1);
  const a = provider.authorizationURLs[0];
  assert.equal(`${a.origin}${a.pathname}`, `${issuer}/authorize`);
  const q = a.searchParams;
  assert.equal(q.get('response_type'), 'code');
  assert.equal(q.get('client_id'), provider.client.client_id);
  assert.equal(q.get('redirect_uri'), redirectUrl);
  assert.equal(q.get('code_challenge_method'), 'S256');
  assert.equal(q.get('code_challenge'), createHash('sha256').update(provider.verifier).digest('base64url'));
  assert.equal(q.get('state'), provider.expectedState);
  assert.equal(q.get('resource'), target);
  assert.equal(q.get('scope'), wantScope);
});

await check('the authorization server redirects back with code, state and iss (RFC 9207)', async () => {
  const cb = provider.callback;
  assert.equal(`${cb.origin}${cb.pathname}`, redirectUrl);
  assert.ok(cb.searchParams.get('code'));
  assert.equal(cb.searchParams.get('state'), provider.expectedState);
  assert.equal(cb.searchParams.get('iss'), issuer);
  assert.equal(grantsLogged() - grantsBefore, 1, 'one authorization granted');
});

await check('finishAuth redeems the code: a JWT access token for this server, and a refresh token', async () => {
  const cb = provider.callback;
  // v2 takes the callback's parameters and checks iss itself; v1 the code.
  if (generation === 'v2') await transport.finishAuth(cb.searchParams);
  else await transport.finishAuth(cb.searchParams.get('code'));
  const t = provider.saved;
  assert.equal(t?.token_type?.toLowerCase(), 'bearer');
  assert.ok(t.refresh_token, 'a refresh token');
  const claims = JSON.parse(Buffer.from(t.access_token.split('.')[1], 'base64url').toString());
  assert.equal(claims.iss, issuer);
  assert.deepEqual(claims.aud, [target]);
  assert.equal(claims.sub, 'dev-user');
  assert.equal(claims.client_id, provider.client.client_id);
  assert.equal(claims.scope, wantScope);
});

const second = recorder();
let client;
await check('reconnect with the token: initialize, tools/list, tools/call echo', async () => {
  client = newClient();
  const t = sdk.http(target, { authProvider: provider, fetch: second.fetch });
  await client.connect(t);
  assert.equal(client.getServerVersion()?.name, 'mcpkit-everything');
  assert.equal(sdk.protocolVersion(client, t), era);
  const tools = await client.listTools();
  assert.ok(tools.tools.some((t) => t.name === 'echo'), 'echo listed');
  const res = await sdk.callTool(client, { name: 'echo', arguments: { text: `hi from the ${generation} OAuth client` } });
  assert.equal(res.isError ?? false, false);
  assert.equal(textOf(res), `hi from the ${generation} OAuth client`);
});

await check('every request carried the bearer token, none was refused, no second authorization', async () => {
  const mcp = second.seen.filter((r) => r.url === target);
  assert.ok(mcp.length >= 3, `${mcp.length} requests`);
  for (const r of mcp) {
    assert.equal(r.authorization, `Bearer ${provider.saved.access_token}`, `${r.method} Authorization`);
    assert.ok(r.status < 400, `${r.method} answered ${r.status}`);
  }
  assert.equal(provider.authorizationURLs.length, 1);
  assert.equal(grantsLogged() - grantsBefore, 1, 'still one authorization granted');
});

// post sends an initialize request to the server with an Authorization
// header and returns the response.
function post(authorization) {
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  if (authorization) headers.authorization = authorization;
  return fetch(target, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo } }),
  });
}

await check('a token for another resource is refused: 401 invalid_token (no token passthrough)', async () => {
  // The same registered client asks the dev server for a token whose
  // audience is another server.
  const verifier = randomBytes(32).toString('base64url');
  const a = new URL(`${issuer}/authorize`);
  const other = 'http://127.0.0.1:9/other-mcp';
  for (const [k, v] of Object.entries({
    response_type: 'code', client_id: provider.client.client_id, redirect_uri: redirectUrl, scope: 'mcp', state: 'x',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256', resource: other,
  })) a.searchParams.set(k, v);
  const back = await fetch(a, { redirect: 'manual' });
  const code = new URL(back.headers.get('location')).searchParams.get('code');
  const tok = await (await fetch(`${issuer}/token`, {
    method: 'POST',
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUrl, code_verifier: verifier, client_id: provider.client.client_id, resource: other }),
  })).json();
  assert.deepEqual(JSON.parse(Buffer.from(tok.access_token.split('.')[1], 'base64url').toString()).aud, [other]);
  const res = await post(`Bearer ${tok.access_token}`);
  assert.equal(res.status, 401);
  assert.deepEqual(challenge(res.headers.get('www-authenticate')), { resource_metadata: metadataURL, scope: 'mcp', error: 'invalid_token' });
  // The right token is accepted on the same request.
  const ok = await post(`Bearer ${provider.saved.access_token}`);
  assert.equal(ok.status, 200);
  await ok.body?.cancel();
});

await client?.close().catch(() => {});
process.exit(summary(sdk.package, era === MODERN ? `oauth ${MODERN}` : 'oauth'));
