// An MCP server written with @modelcontextprotocol/ext-apps on v2 of the
// TypeScript SDK, for mcpkit's client (interop/apps_test.go), over stdio
// in both protocol eras (serveStdio). It serves the app of ts/apps-app.mjs
// with registerAppResource (with a CSP and a permission on the content
// item, another CSP on the listing entry) and three tools with
// registerAppTool: one for model and app, one app-only, one model-only.
//
//   node ts/apps-server.mjs
import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio';
import { RESOURCE_MIME_TYPE, registerAppResource, registerAppTool } from '@modelcontextprotocol/ext-apps/server';
import { buildApp } from './apps-app.mjs';

const html = buildApp();
const uri = 'ui://interop/weather';

function createServer() {
  const server = new McpServer({ name: 'mcpkit-interop-ts-apps', version: '1.0.0' });
  registerAppResource(server, 'weather', uri, {
    description: 'The weather app',
    _meta: { ui: { csp: { connectDomains: ['https://listing.example'] } } },
  }, async () => ({
    contents: [{
      uri,
      mimeType: RESOURCE_MIME_TYPE,
      text: html,
      _meta: { ui: { csp: { connectDomains: ['https://api.example'], resourceDomains: ['https://*.cdn.example'] }, permissions: { clipboardWrite: {} }, prefersBorder: true } },
    }],
  }));
  const weather = async () => ({
    content: [{ type: 'text', text: 'Sunny, 22 C' }],
    structuredContent: { temperature: 22 },
  });
  registerAppTool(server, 'get_weather', { description: 'Weather', _meta: { ui: { resourceUri: uri } } }, weather);
  registerAppTool(server, 'refresh', { description: 'Refresh', _meta: { ui: { resourceUri: uri, visibility: ['app'] } } }, weather);
  registerAppTool(server, 'summary', { description: 'Summary', _meta: { ui: { resourceUri: uri, visibility: ['model'] } } }, weather);
  return server;
}

serveStdio(() => createServer(), {
  transport: new StdioServerTransport(),
  onerror: (e) => console.error('apps-server:', e.message),
});
