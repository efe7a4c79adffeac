// Prints every check of a conformance results directory (written by
// `conformance ... -o DIR`) whose status is WARNING, FAILURE or SKIPPED,
// one line each, so that CI logs show what the scenario summary hides.
//
// The suite passes a scenario whose checks were SKIPPED (it scores only
// FAILURE and WARNING), so a check that never ran would pass silently.
// This script exits 1 on a SKIPPED check not listed in expectedSkipped
// below, on a listed one that no longer appears (delete it), on a scenario
// that recorded no check at all, and on a directory without results.
// Usage: node summarize.mjs DIR   (DIR's base name is the run's name)
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { basename, join, relative } from 'node:path';

// The checks that may be SKIPPED, by run (run.sh's suite names), scenario
// and check name, each with the reason it cannot run against mcpkit.
const expectedSkipped = {
  // The suite's tasks-status-notifications is a placeholder: its only
  // check is SKIPPED by the suite itself ("pending subscriptions/listen
  // rewrite"), whatever the server does.
  'server-0.2.0-alpha.12-tasks': { 'tasks-status-notifications': ['TasksStatusNotificationsScenario'] },
  'server-0.2.0-alpha.12-tasks-replicated': { 'tasks-status-notifications': ['TasksStatusNotificationsScenario'] },
  'client-0.2.0-alpha.12-2026-07-28': {
    // The stateless era sends neither initialize nor
    // notifications/initialized, so their Mcp-Method header cannot be seen.
    'http-standard-headers': ['ClientMcpMethodHeader_initialize', 'ClientMcpMethodHeader_notifications_initialized'],
  },
};

const root = process.argv[2];
if (!root || !existsSync(root)) {
  console.log(`  no results in ${root}: the run recorded nothing`);
  process.exit(1);
}
const allowed = new Set(Object.entries(expectedSkipped[basename(root)] ?? {}).flatMap(([sc, names]) => names.map((n) => `${sc} ${n}`)));
const skippedSeen = new Set();
const problems = [];
let scenarios = 0;
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
  const checks = JSON.parse(readFileSync(join(run, 'checks.json'), 'utf8'));
  scenarios++;
  if (checks.length === 0) problems.push(`${scenario}: no check recorded`);
  const shown = checks.filter((c) => c.status in counts);
  for (const c of shown) {
    counts[c.status]++;
    if (c.status !== 'SKIPPED') continue;
    const key = `${scenario} ${c.name}`;
    skippedSeen.add(key);
    if (!allowed.has(key)) problems.push(`${scenario} [${c.id}] ${c.name}: SKIPPED, and not in expectedSkipped (summarize.mjs)`);
  }
  // Three or more checks that did not pass: one line for the scenario.
  const list = shown.length >= 3 ? [shown[0]] : shown;
  for (const c of list) {
    const why = (c.errorMessage ?? c.description ?? '').replace(/\s+/g, ' ').slice(0, 160);
    const more = list.length < shown.length ? ` (and ${shown.length - 1} more checks)` : '';
    console.log(`  ${c.status.padEnd(7)} ${scenario} [${c.id}] ${why}${more}`);
  }
}
console.log(`  checks: ${counts.FAILURE} FAILURE, ${counts.WARNING} WARNING, ${counts.SKIPPED} SKIPPED`);
if (scenarios === 0) problems.push(`no scenario results in ${root}`);
for (const key of allowed) {
  if (!skippedSeen.has(key)) problems.push(`${key}: listed in expectedSkipped but no longer SKIPPED (delete the entry)`);
}
for (const p of problems) console.log(`  NOT ALLOWED: ${p}`);
process.exit(problems.length > 0 ? 1 : 0);
