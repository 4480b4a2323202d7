// Interop client: drives an MCP server over stdio with the official TypeScript
// MCP client (@modelcontextprotocol/sdk) and checks that every planned call
// passes the client's own validation of structured content.
//
// Usage:
//
//   node client.mjs --plan <plan.json> <server-command> [server-args...]
//
// The plan is a JSON array of calls:
//
//   [{"tool": "list_items", "arguments": {"count": 2}, "expect": "inline"}, ...]
//
// expect is one of:
//
//   skip              the tool is listed but not called (for tools whose call
//                     needs what the test cannot give, such as network access);
//   inline            the call succeeds and the result is not a descriptor;
//   offloaded         the call succeeds and the result is a descriptor whose
//                     file_path is absolute and exists, with exactly ten
//                     jq_recipes;
//   fallback          the call succeeds, the file could not be written: the
//                     first text content is the fallback's warning, and
//                     nothing is a descriptor; with "structured": "notice"
//                     the structured content is {"offloaded": false}, with
//                     "own" it is the tool's own (no "offloaded" member);
//   validation_error  the client rejects the result because it does not
//                     match the tool's advertised output schema (a negative
//                     control proving that validation is active).
//
// A string argument may hold {{ROOT}}, replaced by the LRO_PLAN_ROOT
// environment variable (a folder the test prepared), and {{LAST_FILE}},
// replaced by the file_path of the last offloaded result of the run (so a
// plan can query it with lro_extract, lro_read and lro_search).
//
// "Succeeds" means callTool did not throw (so the SDK's outputSchema
// validation passed) and isError is not true. Every tool the server lists
// must appear in the plan, and every planned tool must be listed.
//
// The client prints one line per check and, last, exactly "N passed, M
// failed". It exits 0 when nothing failed, 1 when a check failed and 2 on a
// usage or connection error.
//
// How validation works in @modelcontextprotocol/sdk 1.x (client/index.js):
// listTools() calls cacheToolMetadata(), which compiles every advertised
// outputSchema with the client's jsonSchemaValidator (by default
// AjvJsonSchemaValidator: Ajv, draft-07 dialect, strict: false,
// validateSchema: false, ajv-formats) into _cachedToolOutputValidators.
// callTool() then looks the tool up there; when it has a validator it throws
// McpError "Tool X has an output schema but did not return structured
// content" for a result without structuredContent (unless isError), and
// "Structured content does not match the tool's output schema: ..." for a
// mismatch. Without a prior listTools() nothing is validated, so this client
// lists the tools first and checks that a validator is cached for each tool
// that advertises an outputSchema.

import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import process from 'node:process';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';

const EXPECTATIONS = new Set(['inline', 'offloaded', 'fallback', 'validation_error', 'skip']);
const RECIPE_COUNT = 10;

function usage(msg) {
  if (msg) console.error(`client.mjs: ${msg}`);
  console.error('usage: node client.mjs --plan <plan.json> <server-command> [server-args...]');
  process.exit(2);
}

function parseArgs(argv) {
  let planFile;
  let i = 0;
  for (; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--plan') {
      planFile = argv[++i];
      if (!planFile) usage('--plan needs a file');
    } else if (a.startsWith('--plan=')) {
      planFile = a.slice('--plan='.length);
    } else if (a === '--') {
      i++;
      break;
    } else {
      break;
    }
  }
  const server = argv.slice(i);
  if (!planFile) usage('no plan given');
  if (server.length === 0) usage('no server command given');
  return { planFile, command: server[0], args: server.slice(1) };
}

function readPlan(file) {
  let plan;
  try {
    plan = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    usage(`reading plan ${file}: ${err.message}`);
  }
  if (!Array.isArray(plan) || plan.length === 0) usage(`plan ${file} is not a non-empty array`);
  for (const [i, step] of plan.entries()) {
    if (typeof step?.tool !== 'string' || !EXPECTATIONS.has(step.expect)) {
      usage(`plan step ${i}: want {tool: string, arguments?: object, expect: ${[...EXPECTATIONS].join('|')}}, got ${JSON.stringify(step)}`);
    }
  }
  const root = process.env.LRO_PLAN_ROOT ?? '';
  const substitute = (v) => {
    if (typeof v === 'string') return v.replaceAll('{{ROOT}}', root);
    if (Array.isArray(v)) return v.map(substitute);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, substitute(x)]));
    return v;
  };
  return plan.map((step) => ({ ...step, arguments: substitute(step.arguments) }));
}

// descriptorOf returns the offload descriptor carried by a result, or null:
// the structured content when it has offloaded: true, else the first text
// content that parses to such an object.
function descriptorOf(result) {
  const sc = result.structuredContent;
  if (sc && typeof sc === 'object' && sc.offloaded === true) return sc;
  for (const c of result.content ?? []) {
    if (c.type !== 'text') continue;
    try {
      const v = JSON.parse(c.text);
      if (v && typeof v === 'object' && !Array.isArray(v) && v.offloaded === true) return v;
    } catch {
      // not JSON: not a descriptor
    }
  }
  return null;
}

// checkDescriptor returns the problems of an offload descriptor.
function checkDescriptor(d) {
  const problems = [];
  if (typeof d.file_path !== 'string' || !isAbsolute(d.file_path)) {
    problems.push(`file_path ${JSON.stringify(d.file_path)} is not absolute`);
  } else if (!existsSync(d.file_path) || !statSync(d.file_path).isFile()) {
    problems.push(`file_path ${d.file_path} does not exist`);
  } else {
    const lines = readFileSync(d.file_path, 'utf8').split('\n').filter((l) => l !== '');
    let header;
    try {
      header = JSON.parse(lines[0]);
    } catch {
      header = null;
    }
    if (header?.type !== 'lro_header') problems.push('line 1 of the file is not an lro_header');
    if (d.summary && lines.length - 1 !== d.summary.count) {
      problems.push(`file has ${lines.length - 1} records, summary.count is ${d.summary.count}`);
    }
  }
  if (!Array.isArray(d.jq_recipes) || d.jq_recipes.length !== RECIPE_COUNT) {
    problems.push(`jq_recipes has ${Array.isArray(d.jq_recipes) ? d.jq_recipes.length : 'no'} entries, want ${RECIPE_COUNT}`);
  } else if (!d.jq_recipes.every((r) => typeof r?.description === 'string' && typeof r?.command === 'string')) {
    problems.push('a jq_recipes entry lacks description or command');
  }
  return problems;
}

// dumpGoroutines makes the processes that the server pid started (the
// upstream of a proxy), then the server, print the stacks of their
// goroutines and exit (SIGQUIT, to Go programs), so that a call without an
// answer shows where it waits. One at a time, or their stacks would mix on
// the shared stderr; the children are listed first (one whose parent has
// exited is not found). A proxy logs how many calls in flight its upstream's
// exit failed (requests_failed) before it prints its own stacks.
function dumpGoroutines(pid, why) {
  if (!pid) return;
  console.error(`client.mjs: ${why}; the goroutines of the processes the server (pid ${pid}) started, then of the server, follow`);
  let children = [];
  try {
    children = execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' }).split('\n').filter(Boolean).map(Number);
  } catch {} // no children, or no pgrep
  for (const p of [...children, pid]) {
    try {
      process.kill(p, 'SIGQUIT');
      execFileSync('sleep', ['1']);
    } catch {}
  }
}

// dumpAfter is how long a call may go unanswered before dumpGoroutines
// shows where it waits (LRO_INTEROP_DUMP_AFTER_MS, in milliseconds): before
// the SDK's request timeout of 60 s, which cancels the call
// (notifications/cancelled) and so removes it from the stacks; a call here
// takes well under a second.
const dumpAfter = Number(process.env.LRO_INTEROP_DUMP_AFTER_MS) || 45_000;

function isValidationError(err) {
  const msg = String(err?.message ?? err);
  return /does not match the tool's output schema|did not return structured content|Failed to validate structured content/.test(msg);
}

async function main() {
  const { planFile, command, args } = parseArgs(process.argv.slice(2));
  const plan = readPlan(planFile);

  const transport = new StdioClientTransport({ command, args, env: { ...process.env, GOTRACEBACK: 'all' }, stderr: 'inherit' });
  const client = new Client({ name: 'lro-go-interop', version: '0.0.0' });
  // A message the client cannot take (no JSON, an unknown id) is dropped by
  // the SDK, and its request times out: say so.
  client.onerror = (err) => console.error(`client.mjs: the client dropped a message: ${err?.message ?? err}`);
  try {
    await client.connect(transport);
  } catch (err) {
    console.error(`client.mjs: connecting to ${command}: ${err.message}`);
    process.exit(2);
  }

  let passed = 0;
  let failed = 0;
  const report = (ok, line) => {
    if (ok) passed++;
    else failed++;
    console.log(`${ok ? 'PASS' : 'FAIL'} ${line}`);
  };

  try {
    // listTools caches the output validators that callTool uses. It resets
    // the cache on every call, so the tools must come in one page.
    let listed;
    try {
      listed = await client.listTools();
    } catch (err) {
      report(false, `tools/list: ${err.message}`);
      return;
    }
    if (listed.nextCursor) {
      report(false, 'tools/list: the server paginates, and the client keeps only the validators of the last page');
    }
    const tools = new Map(listed.tools.map((t) => [t.name, t]));
    const planned = new Set(plan.map((s) => s.tool));
    for (const t of tools.values()) {
      if (!planned.has(t.name)) report(false, `tools/list: tool ${t.name} is not in the plan`);
      if (t.outputSchema && typeof client.getToolOutputValidator?.(t.name) !== 'function') {
        report(false, `tools/list: tool ${t.name} advertises an outputSchema but the client cached no validator`);
      }
    }
    for (const name of planned) {
      if (!tools.has(name)) report(false, `tools/list: planned tool ${name} is not listed`);
    }
    const validated = [...tools.values()].filter((t) => t.outputSchema).map((t) => t.name);
    console.log(`listed ${tools.size} tools; outputSchema validated for: ${validated.join(', ') || 'none'}`);

    let lastFile = '';
    for (const step of plan) {
      const label = `${step.tool} ${JSON.stringify(step.arguments ?? {})} expect=${step.expect}`;
      if (!tools.has(step.tool)) continue; // reported above
      if (step.expect === 'skip') {
        console.log(`SKIP ${label}`);
        continue;
      }
      let result;
      const args = JSON.parse(JSON.stringify(step.arguments ?? {}).replaceAll('{{LAST_FILE}}', JSON.stringify(lastFile).slice(1, -1)));
      // A call still unanswered after dumpAfter: show where it waits.
      let dumped = false;
      const watchdog = setTimeout(() => {
        dumped = true;
        dumpGoroutines(transport.pid, `${step.tool} has had no answer for ${dumpAfter} ms`);
      }, dumpAfter);
      try {
        result = await client.callTool({ name: step.tool, arguments: args });
        clearTimeout(watchdog);
        if (dumped) {
          report(false, `${label}: no answer within ${dumpAfter} ms (the goroutines are above)`);
          return;
        }
      } catch (err) {
        clearTimeout(watchdog);
        if (step.expect === 'validation_error' && isValidationError(err)) {
          report(true, `${label}: rejected: ${err.message}`);
        } else {
          report(false, `${label}: callTool threw: ${err.message}`);
        }
        if (dumped || err?.code === ErrorCode.RequestTimeout) {
          if (!dumped) dumpGoroutines(transport.pid, `${step.tool} timed out`);
          return;
        }
        continue;
      }
      if (step.expect === 'validation_error') {
        report(false, `${label}: the client accepted the result: ${JSON.stringify(result).slice(0, 300)}`);
        continue;
      }
      if (result.isError) {
        report(false, `${label}: isError: ${JSON.stringify(result.content).slice(0, 500)}`);
        continue;
      }
      const hasSchema = Boolean(tools.get(step.tool).outputSchema);
      const d = descriptorOf(result);
      if (step.expect === 'inline') {
        if (d) report(false, `${label}: offloaded to ${d.file_path}`);
        else report(true, `${label}: inline${hasSchema ? ', structuredContent valid' : ''}`);
        continue;
      }
      if (step.expect === 'fallback') {
        const warning = result.content?.[0]?.type === 'text' ? result.content[0].text : '';
        const sc = result.structuredContent;
        const problems = [];
        if (d) problems.push(`offloaded to ${d.file_path}`);
        if (!warning.startsWith('Warning:')) problems.push(`no warning first: ${JSON.stringify(result.content?.[0]).slice(0, 200)}`);
        if (step.structured === 'notice' && JSON.stringify(sc) !== '{"offloaded":false}') {
          problems.push(`structuredContent ${JSON.stringify(sc)?.slice(0, 200)}, want {"offloaded":false}`);
        }
        if (step.structured === 'own' && (!sc || 'offloaded' in sc)) {
          problems.push(`structuredContent ${JSON.stringify(sc)?.slice(0, 200)}, want the tool's own`);
        }
        if (problems.length > 0) report(false, `${label}: ${problems.join('; ')}`);
        else report(true, `${label}: fallback, ${warning.slice(0, 80)}${hasSchema ? ', structuredContent valid' : ''}`);
        continue;
      }
      if (!d) {
        report(false, `${label}: not offloaded: ${JSON.stringify(result).slice(0, 300)}`);
        continue;
      }
      lastFile = d.file_path;
      const problems = checkDescriptor(d);
      if (problems.length > 0) {
        report(false, `${label}: ${problems.join('; ')}`);
      } else {
        report(true, `${label}: offloaded, ${d.summary?.count ?? '?'} records in ${d.file_path}${hasSchema ? ', structuredContent valid' : ''}`);
      }
    }
  } finally {
    await client.close().catch(() => {});
    console.log(`${passed} passed, ${failed} failed`);
    process.exitCode = failed > 0 ? 1 : 0;
  }
}

main().catch((err) => {
  console.error(`client.mjs: ${err.stack ?? err}`);
  process.exit(2);
});
