// A TypeScript SDK (v1) server protected by the SDK's own bearer
// middleware, for mcpkit's OAuth client (oauth_test.go):
//
//   node ts/server-auth.mjs ISSUER
//
// ISSUER is a running development authorization server (mcpkit
// dev-auth-server / auth/devserver). The server listens on 127.0.0.1 on a
// free port and logs "url=http://127.0.0.1:PORT/mcp" on stderr when it
// is ready. Express with:
//
//   - mcpAuthMetadataRouter: the protected resource metadata (RFC 9728) at
//     /.well-known/oauth-protected-resource/mcp naming ISSUER, with
//     scopes_supported ["mcp"];
//   - requireBearerAuth on /mcp, with a verifier that checks the dev
//     server's JWT access tokens with jose against its JWKS: the ES256
//     signature, typ at+jwt, iss = ISSUER, aud = this server's URL (RFC
//     8707) and exp; and expectedResource, requiredScopes ["mcp"] and
//     resourceMetadataUrl;
//   - StreamableHTTPServerTransport, one session per initialize, serving an
//     McpServer with the tools echo and whoami (what the middleware put on
//     the request: subject, client, scopes).
//
// GET /interop/refusals (not protected) says how many requests the
// middleware refused (401 or 403) and the last WWW-Authenticate header, so
// that the test can see that a cached token was presented and accepted.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import express from 'express';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { mcpAuthMetadataRouter, getOAuthProtectedResourceMetadataUrl } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { z } from 'zod';

const [issuer] = process.argv.slice(2);
if (!issuer) {
  console.error('usage: node ts/server-auth.mjs ISSUER');
  process.exit(2);
}

const asMetadata = await (await fetch(new URL('/.well-known/oauth-authorization-server', issuer))).json();
if (asMetadata.issuer !== issuer) {
  console.error(`server-auth: the authorization server's metadata names issuer ${asMetadata.issuer}, not ${issuer}`);
  process.exit(1);
}
const jwks = createRemoteJWKSet(new URL(asMetadata.jwks_uri ?? new URL('/jwks', issuer)));

const app = express();
const http = createServer(app);
await new Promise((resolve) => http.listen(0, '127.0.0.1', resolve));
const resource = new URL(`http://127.0.0.1:${http.address().port}/mcp`);
const resourceMetadataUrl = getOAuthProtectedResourceMetadataUrl(resource);

// The verifier: the dev server's JWT access tokens (RFC 9068), checked
// against its JWKS; a token for another resource is refused.
const verifier = {
  async verifyAccessToken(token) {
    let payload;
    try {
      ({ payload } = await jwtVerify(token, jwks, {
        issuer,
        audience: resource.href,
        algorithms: ['ES256'],
        typ: 'at+jwt',
        requiredClaims: ['exp', 'sub'],
      }));
    } catch (e) {
      throw new InvalidTokenError(`token refused: ${e.code ?? e.message}`);
    }
    return {
      token,
      clientId: String(payload.client_id ?? ''),
      scopes: typeof payload.scope === 'string' ? payload.scope.split(' ').filter(Boolean) : [],
      expiresAt: payload.exp,
      resource: new URL(Array.isArray(payload.aud) ? payload.aud[0] : payload.aud),
      extra: { sub: payload.sub },
    };
  },
};

app.use(mcpAuthMetadataRouter({ oauthMetadata: asMetadata, resourceServerUrl: resource, scopesSupported: ['mcp'], resourceName: 'mcpkit interop (TypeScript v1 server)' }));

const bearer = requireBearerAuth({ verifier, requiredScopes: ['mcp'], resourceMetadataUrl, expectedResource: resource });
// refusals counts the requests to /mcp the middleware refused, with the
// last WWW-Authenticate header; GET /interop/refusals (not protected) reads
// them. The count goes up in writeHead, before the client can see the
// response, so that a test reading it after a response is exact.
const refusals = { count: 0, last: '' };
const counted = (req, res, next) => {
  const writeHead = res.writeHead;
  res.writeHead = function (status, ...rest) {
    if (status === 401 || status === 403) {
      refusals.count++;
      refusals.last = `${status} ${res.get('WWW-Authenticate')}`;
    }
    return writeHead.call(this, status, ...rest);
  };
  next();
};
app.get('/interop/refusals', (req, res) => res.json(refusals));

function newServer() {
  const server = new McpServer({ name: 'ts-auth-interop', version: '1.0.0' });
  server.registerTool('echo', {
    description: 'Echoes the text back (interop fixture).',
    inputSchema: { text: z.string() },
  }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
  server.registerTool('whoami', {
    description: 'Says who the bearer token belongs to (interop fixture).',
  }, async (extra) => {
    const a = extra.authInfo;
    return { content: [{ type: 'text', text: `sub=${a?.extra?.sub} client=${a?.clientId ? 'registered' : 'none'} scopes=${a?.scopes.join(' ')} resource=${a?.resource?.href}` }] };
  });
  return server;
}

const transports = new Map();
app.all('/mcp', counted, bearer, express.json(), async (req, res) => {
  const id = req.headers['mcp-session-id'];
  let transport = id ? transports.get(id) : undefined;
  if (!transport) {
    if (id || req.method !== 'POST' || !isInitializeRequest(req.body)) {
      // No session: a request before initialize (such as a
      // server/discover probe) or an unknown session.
      res.status(id ? 404 : 400).json({ jsonrpc: '2.0', error: { code: -32000, message: id ? 'Session not found' : 'Bad Request: no session' }, id: null });
      return;
    }
    transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => transports.set(sid, transport),
    });
    transport.onclose = () => transports.delete(transport.sessionId);
    await newServer().connect(transport);
  }
  await transport.handleRequest(req, res, req.body);
});

console.error(`url=${resource.href}`);
const stop = () => process.exit(0);
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
