// Module resolution hook (see register.mjs): `fs` imported by a file of
// the conformance suite resolves to ./fs.mjs. The suite is installed under
// its own name or under the npm aliases conformance/package.json uses
// (conformance-016, conformance-02).
const replacement = new URL('./fs.mjs', import.meta.url).href;
const suiteFile = /\/node_modules\/(?:@modelcontextprotocol\/conformance|conformance-[^/]+)\//;

export async function resolve(specifier, context, nextResolve) {
  if ((specifier === 'fs' || specifier === 'node:fs') && suiteFile.test(context.parentURL ?? '')) {
    return { url: replacement, shortCircuit: true };
  }
  return nextResolve(specifier, context);
}
