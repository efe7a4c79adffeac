// The MCP App of the apps interop checks (interop/apps_test.go), written
// with @modelcontextprotocol/ext-apps (pinned in package.json): a View
// that connects to its host with the package's App and
// PostMessageTransport and shows the tool's result. The package's
// self-contained browser build (app-with-deps.js) is inlined into one
// HTML5 document, its ES module exports bound to globalThis.McpApps, so
// that the app needs no bundler and no network.
//
//   node ts/apps-app.mjs > app.html     # prints the document
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

export function buildApp() {
  const require = createRequire(join(here, '..', 'package.json'));
  const bundle = readFileSync(require.resolve('@modelcontextprotocol/ext-apps/app-with-deps'), 'utf8');
  const m = bundle.match(/export\s*\{([^}]*)\};?\s*$/);
  if (!m) throw new Error('app-with-deps.js does not end with an export list');
  const names = m[1].split(',').map((s) => s.trim().split(/\s+as\s+/)).map(([local, exported]) => `${exported ?? local}:${local}`);
  const exports = `globalThis.McpApps={${names.join(',')}};`;
  for (const want of ['App', 'PostMessageTransport']) {
    if (!names.some((n) => n.startsWith(want + ':'))) throw new Error(`ext-apps exports no ${want}`);
  }
  const body = bundle.slice(0, m.index) + exports;
  const app = `
const { App, PostMessageTransport } = globalThis.McpApps;
const app = new App({ name: 'mcpkit-interop-app', version: '1.0.0' }, {});
app.ontoolresult = (result) => {
  document.getElementById('out').textContent = result.content?.[0]?.text ?? '';
};
await app.connect(new PostMessageTransport(window.parent, window.parent));
`;
  // "</script" inside the bundle would end the element early.
  if (/<\/script/i.test(body)) throw new Error('the bundle contains </script');
  return `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>mcpkit interop app</title></head>
<body><div id="out">waiting for the tool result</div>
<script type="module">${body}
${app}</script></body></html>
`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.stdout.write(buildApp());
}
