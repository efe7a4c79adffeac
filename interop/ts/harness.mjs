// The check runner and small helpers shared by the TypeScript client
// scripts (client.mjs: the 2025 session era; modern.mjs: 2026-07-28).
//
// A check prints one line, "ok   LABEL NAME", "skip LABEL NAME: why" or
// "FAIL LABEL NAME: stack", and counts itself; summary() prints the line
// run.sh adds up: "interop PACKAGE TRANSPORT: N passed, M failed, K skipped".

/** Skip marks a check whose server feature is missing ("not yet: ..."). */
export class Skip extends Error {}

// skipPolicy says when a Skip passes, for failure messages.
const skipPolicy = 'a skipped check fails unless INTEROP_ALLOW_SKIP=1, which CI=true and MCPKIT_REQUIRE_NODE=1 override';

// skipsAllowed reports whether a Skip may count as skipped rather than
// failed: only with INTEROP_ALLOW_SKIP=1, for local exploration, and never
// in CI (CI=true or MCPKIT_REQUIRE_NODE=1), where a skip would hide a check
// that did not run.
export function skipsAllowed() {
  if (process.env.CI === 'true' || process.env.MCPKIT_REQUIRE_NODE === '1') return false;
  return process.env.INTEROP_ALLOW_SKIP === '1';
}

export function harness(label) {
  const allowSkip = skipsAllowed();
  const results = { passed: 0, failed: 0, skipped: 0 };

  // check runs fn with a 20 s bound. A Skip counts as skipped when
  // skipsAllowed, and as failed otherwise.
  async function check(name, fn) {
    let timer;
    const timeout = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error('timed out after 20 s')), 20000);
    });
    try {
      await Promise.race([fn(), timeout]);
      results.passed++;
      console.log(`ok   ${label} ${name}`);
    } catch (e) {
      if (e instanceof Skip && allowSkip) {
        results.skipped++;
        console.log(`skip ${label} ${name}: ${e.message}`);
      } else if (e instanceof Skip) {
        results.failed++;
        console.log(`FAIL ${label} ${name}: skipped (${e.message}); ${skipPolicy}`);
      } else {
        results.failed++;
        console.log(`FAIL ${label} ${name}: ${e?.stack ?? e}`);
      }
    } finally {
      clearTimeout(timer);
    }
  }

  function summary(pkg, transportKind) {
    console.log(`interop ${pkg} ${transportKind}: ${results.passed} passed, ${results.failed} failed, ${results.skipped} skipped`);
    return results.failed > 0 ? 1 : 0;
  }

  return { check, summary, results };
}

// until resolves once pred() holds, re-checking after each signal() (a
// check's timeout bounds the wait).
const waiters = [];
export function signal() {
  for (const w of waiters.splice(0)) w();
}
export async function until(pred) {
  while (!pred()) await new Promise((resolve) => waiters.push(resolve));
}

// fill answers an elicitation form: the default of each property, or a
// value of its type.
export function fill(schema) {
  const out = {};
  for (const [key, p] of Object.entries(schema?.properties ?? {})) {
    if (p.default !== undefined) out[key] = p.default;
    else if (p.enum) out[key] = p.enum[0];
    else if (p.oneOf) out[key] = p.oneOf[0].const;
    else if (p.type === 'array') out[key] = p.items?.enum ? [p.items.enum[0]] : p.items?.anyOf ? [p.items.anyOf[0].const] : [];
    else if (p.type === 'boolean') out[key] = true;
    else if (p.type === 'integer' || p.type === 'number') out[key] = p.minimum ?? 1;
    else if (p.format === 'email') out[key] = 'interop@example.com';
    else out[key] = 'interop';
  }
  return out;
}

// httpStatus is the HTTP status an SDK error reports: v1's
// StreamableHTTPError has it as code, v2's SdkHttpError as data.status.
export function httpStatus(e) {
  return e?.data?.status ?? e?.status ?? (e?.code >= 400 && e?.code < 600 ? e.code : undefined);
}

export function textOf(result) {
  return (result.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');
}
