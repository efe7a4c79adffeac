// Prints every check of a conformance results directory (written by
// `conformance ... -o DIR`) whose status is WARNING, FAILURE or SKIPPED,
// one line each, so that CI logs show what the scenario summary hides.
// Usage: node summarize.mjs DIR
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = process.argv[2];
if (!root || !existsSync(root)) process.exit(0);
const counts = { WARNING: 0, FAILURE: 0, SKIPPED: 0 };

// Runs are DIR/<scenario>-<ISO timestamp>/checks.json; a server run's
// directory name starts with "server-", and a scenario name with a slash
// (auth/...) makes a subdirectory.
function* runs(dir) {
  for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (!e.isDirectory()) continue;
    const sub = join(dir, e.name);
    if (existsSync(join(sub, 'checks.json'))) yield sub;
    else yield* runs(sub);
  }
}

for (const run of runs(root)) {
  const scenario = relative(root, run).replace(/-\d{4}-\d\d-\d\dT[^/]*$/, '').replace(/^server-/, '');
  const shown = JSON.parse(readFileSync(join(run, 'checks.json'), 'utf8')).filter((c) => c.status in counts);
  for (const c of shown) counts[c.status]++;
  // Three or more checks that did not pass: one line for the scenario.
  const list = shown.length >= 3 ? [shown[0]] : shown;
  for (const c of list) {
    const why = (c.errorMessage ?? c.description ?? '').replace(/\s+/g, ' ').slice(0, 160);
    const more = list.length < shown.length ? ` (and ${shown.length - 1} more checks)` : '';
    console.log(`  ${c.status.padEnd(7)} ${scenario} [${c.id}] ${why}${more}`);
  }
}
console.log(`  checks: ${counts.FAILURE} FAILURE, ${counts.WARNING} WARNING, ${counts.SKIPPED} SKIPPED`);
