// Interop matrix client: drives one MCP server over stdio with the official
// TypeScript MCP client (@modelcontextprotocol/sdk) through every feature of
// the protocol that the server offers, and writes one normalized outcome per
// feature, so that a run against the server itself (DIRECT) and a run through
// the LRO proxy (THROUGH) can be compared feature by feature
// (matrix_test.go does).
//
// Usage:
//
//   node matrix.mjs --server everything|filesystem|memory --root DIR --out FILE -- <command> [args...]
//
// The client declares sampling, elicitation (form and url) and roots, and
// answers them with fixed, recorded replies; its roots are DIR (and, after
// roots/list_changed, DIR and DIR/sub). The features of each server are in
// SERVERS, run in order on one session (one of them opens a second session
// on an older protocol version). FILE receives a JSON object: feature name
// -> {outcome, summary}. An outcome is JSON with clock times replaced by
// "<time>", DIR by "{{ROOT}}" (its file URI by "{{ROOT_URI}}"), task ids
// and the JSON-RPC id of a late reply by "<id>", so that it is the same for two
// runs that behave the same; summary is a few words for the
// Markdown table. A feature that throws records {error: {code, message}}.
// Tool calls record the whole result: for memory's read_graph, the Go test
// compares it with the file an offloaded THROUGH result points to.
//
// Whatever the server sends on its own (a notification, a request for the
// roots) is waited for at most WAIT_MS: only a run where it does not come
// waits that long.
//
// The client exits 0 when it could run every feature (whatever the
// outcomes) and 2 on a usage or connection error.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';
import { pathToFileURL } from 'node:url';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';

// How long to wait for something the server sends on its own (a
// notification, a roots request): only a broken run waits this long.
const WAIT_MS = 5000;

function usage(msg) {
  if (msg) console.error(`matrix.mjs: ${msg}`);
  console.error('usage: node matrix.mjs --server everything|filesystem|memory --root DIR --out FILE -- <command> [args...]');
  process.exit(2);
}

function parseArgs(argv) {
  const opts = {};
  let i = 0;
  for (; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') {
      i++;
      break;
    }
    if (!['--server', '--root', '--out'].includes(a) || i + 1 >= argv.length) usage(`unknown or incomplete flag ${a}`);
    opts[a.slice(2)] = argv[++i];
  }
  if (!SERVERS[opts.server]) usage(`unknown --server ${opts.server}`);
  if (!opts.root || !opts.out) usage('--root and --out are required');
  if (i >= argv.length) usage('no server command given');
  return { ...opts, command: argv[i], args: argv.slice(i + 1) };
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// waitFor polls cond until it returns a truthy value or WAIT_MS pass.
async function waitFor(cond) {
  const end = Date.now() + WAIT_MS;
  for (;;) {
    const v = await cond();
    if (v || Date.now() >= end) return v;
    await sleep(20);
  }
}

// Session is one client connected to the server, with what it received.
class Session {
  constructor(root) {
    this.root = root;
    this.roots = [{ uri: pathToFileURL(root).href, name: 'interop root' }];
    this.logs = [];
    this.updated = [];
    this.resourceListChanged = 0;
    this.toolListChanged = 0;
    this.rootsRequests = 0;
    this.samplingRequests = [];
    this.elicitationRequests = [];
    this.errors = [];
    this.received = []; // every message from the server, as it came
    this.client = new Client(
      { name: 'lro-go-interop-matrix', version: '0.0.0' },
      { capabilities: { sampling: {}, elicitation: { form: {}, url: {} }, roots: { listChanged: true } } },
    );
    const c = this.client;
    c.onerror = (err) => this.errors.push(String(err?.message ?? err));
    c.setRequestHandler(CreateMessageRequestSchema, async (req) => {
      this.samplingRequests.push(req.params);
      return { model: 'interop-model', role: 'assistant', content: { type: 'text', text: 'sampled reply' }, stopReason: 'endTurn' };
    });
    c.setRequestHandler(ElicitRequestSchema, async (req) => {
      this.elicitationRequests.push(req.params);
      const first = req.params.requestedSchema?.properties?.interpretation?.oneOf?.[0]?.const;
      if (first) return { action: 'accept', content: { interpretation: first } };
      return { action: 'accept', content: { name: 'Ada Lovelace', check: true, integer: 7 } };
    });
    c.setRequestHandler(ListRootsRequestSchema, async () => {
      this.rootsRequests++;
      return { roots: this.roots };
    });
    c.setNotificationHandler(LoggingMessageNotificationSchema, (n) => this.logs.push(n.params));
    c.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => this.updated.push(n.params.uri));
    c.setNotificationHandler(ResourceListChangedNotificationSchema, () => this.resourceListChanged++);
    c.setNotificationHandler(ToolListChangedNotificationSchema, () => this.toolListChanged++);
  }
}

// normalize returns v as plain JSON with the root folder replaced by
// {{ROOT}}, clock times by <time> and task ids by <id>.
function normalize(v, root) {
  const rootURI = pathToFileURL(root).href;
  const s = JSON.stringify(v ?? null, (k, x) => {
    if (k === 'taskId') return '<id>';
    if (typeof x !== 'string') return x;
    return x
      .replaceAll(rootURI, '{{ROOT_URI}}')
      .replaceAll(root, '{{ROOT}}')
      .replace(/\b\d{1,2}:\d{2}:\d{2}(\s?[AP]M)?/g, '<time>');
  });
  return JSON.parse(s);
}

function errorOutcome(err) {
  return { error: { code: err?.code ?? null, message: String(err?.message ?? err) } };
}

// toolSummary says in a few words what a tool result is.
function toolSummary(r) {
  if (r?.structuredContent?.offloaded === true) return 'offloaded';
  const kinds = (r?.content ?? []).map((c) => c.type).join('+') || 'no content';
  return `${r?.isError ? 'tool error' : 'ok'}, ${kinds}${r?.structuredContent ? ' +structured' : ''}`;
}

// The features, server by server. Each is [name, async (s) => {outcome,
// summary}], run in order on one session; a feature's name is the row of
// the matrix.
const common = {
  initialize: [
    ['initialize: server info', async (s) => {
      const v = s.client.getServerVersion();
      return { outcome: v, summary: `${v?.name} ${v?.version}` };
    }],
    ['initialize: protocol version', async (s) => {
      const v = s.received.find((m) => m.result?.protocolVersion)?.result.protocolVersion ?? null;
      return { outcome: v, summary: String(v) };
    }],
    ['initialize: instructions', async (s) => {
      const v = s.client.getInstructions();
      return { outcome: v ?? null, summary: v ? `${v.length} chars` : 'none' };
    }],
    ['initialize: capabilities', async (s) => {
      const v = s.client.getServerCapabilities();
      return { outcome: v, summary: Object.keys(v ?? {}).sort().join(', ') };
    }],
  ],
  tools: [
    ['tools/list', async (s) => {
      const { tools } = await s.client.listTools();
      tools.sort((a, b) => a.name.localeCompare(b.name));
      return { outcome: tools, summary: `${tools.length} tools` };
    }],
  ],
  ping: [
    ['ping', async (s) => {
      const v = await s.client.ping();
      return { outcome: v, summary: 'ok' };
    }],
  ],
  unknownTool: [
    ['tools/call: unknown tool', async (s) => {
      const r = await s.client.callTool({ name: 'no-such-tool', arguments: {} });
      return { outcome: r, summary: toolSummary(r) };
    }],
  ],
};

// callTool calls a tool and records its result.
function callStep(name, tool, args) {
  return [name, async (s) => {
    const r = await s.client.callTool({ name: tool, arguments: args });
    return { outcome: r, summary: toolSummary(r) };
  }];
}

// listStep records a list request (resources, templates, prompts) that a
// server without the capability answers with an error.
function listStep(name, fn, key) {
  return [name, async (s) => {
    const r = await fn(s.client);
    return { outcome: r, summary: `${r[key].length} ${key}` };
  }];
}

const resourceLists = [
  listStep('resources/list', (c) => c.listResources(), 'resources'),
  listStep('resources/templates/list', (c) => c.listResourceTemplates(), 'resourceTemplates'),
];
const promptList = [listStep('prompts/list', (c) => c.listPrompts(), 'prompts')];

const setLevel = ['logging/setLevel', async (s) => {
  const r = await s.client.setLoggingLevel('debug');
  return { outcome: r, summary: 'ok' };
}];

// olderProtocol is a second session that asks for protocol 2025-06-18: the
// negotiated version, the server, its tools and a ping.
const olderProtocol = ['initialize: protocol 2025-06-18', async (s) => {
  const old = await connect(s.opts, '2025-06-18');
  try {
    const v = old.received.find((m) => m.result?.protocolVersion)?.result.protocolVersion ?? null;
    const { tools } = await old.client.listTools();
    const names = tools.map((t) => t.name).sort();
    await old.client.ping();
    return { outcome: { protocolVersion: v, server: old.client.getServerVersion(), tools: names }, summary: `${v}, ${names.length} tools` };
  } finally {
    await old.client.close().catch(() => {});
  }
}];

const SERVERS = {
  everything: [
    ...common.initialize,
    ...common.tools,
    ['tools/list: capability-gated tools', async (s) => {
      const { tools } = await s.client.listTools();
      const gated = ['get-roots-list', 'trigger-elicitation-request', 'trigger-sampling-request', 'trigger-url-elicitation', 'simulate-research-query'];
      const have = gated.filter((g) => tools.some((t) => t.name === g));
      return { outcome: have, summary: `${have.length} of ${gated.length}` };
    }],
    ['tools/list: execution.taskSupport', async (s) => {
      const { tools } = await s.client.listTools();
      const ex = Object.fromEntries(tools.filter((t) => t.execution).map((t) => [t.name, t.execution]));
      const counts = {};
      for (const e of Object.values(ex)) counts[e.taskSupport] = (counts[e.taskSupport] ?? 0) + 1;
      return { outcome: ex, summary: Object.entries(counts).map(([v, n]) => `${n} ${v}`).join(', ') || 'none' };
    }],
    ...common.ping,
    setLevel,
    callStep('tools/call', 'echo', { message: 'hello' }),
    callStep('tools/call: structured content', 'get-structured-content', { location: 'Chicago' }),
    callStep('tools/call: error', 'get-sum', { a: 'two', b: 40 }),
    ...common.unknownTool,
    ...resourceLists,
    ['resources/read', async (s) => {
      const { resources } = await s.client.listResources();
      const uris = [resources[0]?.uri ?? 'demo://resource/static/document/architecture.md', 'demo://resource/dynamic/text/1'];
      const out = [];
      for (const uri of uris) out.push(await s.client.readResource({ uri }));
      return { outcome: out, summary: `${out.length} read` };
    }],
    ['resources/subscribe', async (s) => {
      const { resources } = await s.client.listResources();
      const uri = resources[0]?.uri ?? 'demo://resource/static/document/architecture.md';
      const before = s.logs.length;
      const r = await s.client.subscribeResource({ uri });
      await s.client.ping(); // a barrier: what the server sent before is in
      // Only the server's messages about the subscription: its message
      // about the roots may come at any time.
      s.subscribeLogs = s.logs.slice(before).filter((l) => JSON.stringify(l.data).includes(uri));
      return { outcome: { uri, result: r }, summary: 'ok' };
    }],
    ['logging: messages', async (s) => {
      const got = (s.subscribeLogs ?? []).map((l) => ({ level: l.level, logger: l.logger ?? null, data: l.data }));
      return { outcome: got, summary: `${got.length} after subscribe` };
    }],
    ['resources: updated notification', async (s) => {
      await s.client.callTool({ name: 'toggle-subscriber-updates', arguments: {} });
      const got = await waitFor(() => s.updated.length > 0);
      await s.client.callTool({ name: 'toggle-subscriber-updates', arguments: {} });
      const uris = [...new Set(s.updated)];
      return { outcome: { received: Boolean(got), uris }, summary: got ? `${uris.length} uri` : 'none' };
    }],
    ['resources/unsubscribe', async (s) => {
      // At level error, the server's info message about it is not sent.
      const { resources } = await s.client.listResources();
      const uri = resources[0]?.uri ?? 'demo://resource/static/document/architecture.md';
      await s.client.setLoggingLevel('error');
      const before = s.logs.length;
      const r = await s.client.unsubscribeResource({ uri });
      await s.client.ping();
      const logs = s.logs.slice(before).filter((l) => JSON.stringify(l.data).includes(uri));
      await s.client.setLoggingLevel('debug');
      return { outcome: { result: r, logsAtLevelError: logs }, summary: `ok, ${logs.length} log messages at level error` };
    }],
    ['resources: list_changed', async (s) => {
      const before = s.resourceListChanged;
      const r = await s.client.callTool({
        name: 'gzip-file-as-resource',
        arguments: { name: 'interop.txt.gz', data: 'data:text/plain;base64,aGVsbG8gaW50ZXJvcA==', outputType: 'resourceLink' },
      });
      const got = await waitFor(() => s.resourceListChanged > before);
      const { resources } = await s.client.listResources();
      const session = resources.filter((x) => x.uri.includes('/session/'));
      return { outcome: { result: r, notified: Boolean(got), sessionResources: session }, summary: got ? 'notified' : 'not notified' };
    }],
    ...promptList,
    ['prompts/get', async (s) => {
      const out = [];
      out.push(await s.client.getPrompt({ name: 'simple-prompt' }));
      out.push(await s.client.getPrompt({ name: 'args-prompt', arguments: { city: 'Paris', state: 'Texas' } }));
      out.push(await s.client.getPrompt({ name: 'completable-prompt', arguments: { department: 'Engineering', name: 'Alice' } }));
      return { outcome: out, summary: `${out.length} prompts` };
    }],
    ['completion/complete', async (s) => {
      const ref = { type: 'ref/prompt', name: 'completable-prompt' };
      const a = await s.client.complete({ ref, argument: { name: 'department', value: 'E' } });
      const b = await s.client.complete({ ref, argument: { name: 'name', value: 'A' }, context: { arguments: { department: 'Engineering' } } });
      return { outcome: [a, b], summary: [...a.completion.values, ...b.completion.values].join(', ') };
    }],
    ['progress', async (s) => {
      // What the transport received, in order: the client runs a
      // notification's handler a little later than it takes a response, so
      // its onprogress may miss the last notification, which the server
      // sends just before its result. All must arrive, and those sent well
      // before the result must come before it; the last one may come just
      // after it.
      const from = s.received.length;
      let handled = 0;
      const r = await s.client.callTool(
        { name: 'trigger-long-running-operation', arguments: { duration: 0.3, steps: 3 } },
        undefined,
        { onprogress: () => handled++ },
      );
      await s.client.ping(); // a barrier: what the server sent before is in
      const all = [];
      const early = [];
      let done = false;
      for (const m of s.received.slice(from)) {
        if ('result' in m && JSON.stringify(m.result).includes('Long running operation completed')) done = true;
        if (m.method !== 'notifications/progress') continue;
        const p = { progress: m.params.progress, total: m.params.total };
        all.push(p);
        if (!done && p.progress < p.total) early.push(p);
      }
      return { outcome: { all, early, handled: handled > 0, result: r }, summary: `${all.length} notifications, ${early.length} well before the result` };
    }],
    ['cancellation', async (s) => {
      // A 1.5 s operation in 3 steps, cancelled at its first progress
      // notification (0.5 s in); then wait 2 s, past its end: no reply may
      // arrive for it.
      const ac = new AbortController();
      const errorsBefore = s.errors.length;
      let rejected = null;
      try {
        await s.client.callTool(
          { name: 'trigger-long-running-operation', arguments: { duration: 1.5, steps: 3 } },
          undefined,
          { signal: ac.signal, onprogress: () => ac.abort('interop cancel') },
        );
      } catch (err) {
        rejected = String(err?.message ?? err);
      }
      await sleep(2000);
      await s.client.ping();
      const late = s.errors.slice(errorsBefore).filter((e) => e.includes('unknown message ID')).map((e) => e.replace(/"id":\d+/g, '"id":<id>'));
      return { outcome: { rejected, lateReplies: late }, summary: late.length ? `${late.length} late reply` : 'no late reply' };
    }],
    ['sampling', async (s) => {
      const before = s.samplingRequests.length;
      const r = await s.client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'say hi', maxTokens: 20 } });
      const req = s.samplingRequests.slice(before);
      return { outcome: { requests: req, result: r }, summary: `${req.length} request, ${toolSummary(r)}` };
    }],
    ['elicitation', async (s) => {
      const before = s.elicitationRequests.length;
      const r = await s.client.callTool({ name: 'trigger-elicitation-request', arguments: {} });
      const req = s.elicitationRequests.slice(before);
      return { outcome: { requests: req, result: r }, summary: `${req.length} request, ${toolSummary(r)}` };
    }],
    ['tasks: input_required', async (s) => {
      // A tool that runs as a task (tools/call with task, tasks/get,
      // tasks/result) and, being told the query is ambiguous, asks the
      // client through the task (input_required) what it means.
      const before = s.elicitationRequests.length;
      const out = { created: null, lastStatus: null, result: null, error: null };
      const stream = s.client.experimental.tasks.callToolStream(
        { name: 'simulate-research-query', arguments: { topic: 'interop', ambiguous: true } },
        undefined,
        { task: { ttl: 60000 } },
      );
      for await (const m of stream) {
        if (m.type === 'taskCreated') out.created = { status: m.task.status, fields: Object.keys(m.task).sort() };
        if (m.type === 'taskStatus') out.lastStatus = m.task.status;
        if (m.type === 'result') out.result = m.result;
        if (m.type === 'error') out.error = String(m.error?.message ?? m.error);
      }
      out.elicitations = s.elicitationRequests.slice(before).map((p) => p.message);
      return { outcome: out, summary: `${out.created?.status ?? 'no task'} -> ${out.lastStatus}, ${out.elicitations.length} elicitation, ${out.result ? toolSummary(out.result) : 'error'}` };
    }],
    ['roots', async (s) => {
      await waitFor(() => s.rootsRequests > 0); // the server asks 350 ms after initialize
      const r = await s.client.callTool({ name: 'get-roots-list', arguments: {} });
      return { outcome: r, summary: toolSummary(r) };
    }],
    ['roots/list_changed', async (s) => {
      const before = s.rootsRequests;
      s.roots = [...s.roots, { uri: pathToFileURL(join(s.root, 'sub')).href, name: 'interop sub' }];
      await s.client.sendRootsListChanged();
      const asked = await waitFor(() => s.rootsRequests > before);
      // The server takes the new roots in after our answer reaches it.
      const list = () => s.client.callTool({ name: 'get-roots-list', arguments: {} });
      const r = (asked && await waitFor(async () => {
        const x = await list();
        return JSON.stringify(x).includes('interop sub') ? x : null;
      })) || await list();
      return { outcome: { asked: Boolean(asked), result: r }, summary: asked ? 'server asked again' : 'server did not ask' };
    }],
    ['tools: list_changed', async (s) => {
      // The server registers its capability-gated tools once initialized,
      // and says so.
      const got = await waitFor(() => s.toolListChanged > 0);
      return { outcome: Boolean(got), summary: got ? 'notified' : 'not notified' };
    }],
    olderProtocol,
  ],

  filesystem: [
    ...common.initialize,
    ...common.tools,
    ...common.ping,
    setLevel,
    ['roots', async (s) => {
      // The server asks for the roots after initialize and makes them its
      // allowed directories.
      const asked = await waitFor(() => s.rootsRequests > 0);
      const r = await allowedDirectories(s, asked, s.root);
      return { outcome: { asked: Boolean(asked), result: r }, summary: asked ? `asked, ${toolSummary(r)}` : 'server did not ask' };
    }],
    callStep('tools/call', 'read_text_file', { path: '{{ROOT}}/small.txt' }),
    callStep('tools/call: directory', 'list_directory', { path: '{{ROOT}}' }),
    callStep('tools/call: error', 'read_text_file', { path: '{{ROOT}}/missing.txt' }),
    ...common.unknownTool,
    ...resourceLists,
    ...promptList,
    ['completion/complete', async (s) => {
      const r = await s.client.complete({ ref: { type: 'ref/prompt', name: 'no-such-prompt' }, argument: { name: 'x', value: '' } });
      return { outcome: r, summary: r.completion.values.join(', ') || 'no values' };
    }],
    ['roots/list_changed', async (s) => {
      const before = s.rootsRequests;
      s.roots = [...s.roots, { uri: pathToFileURL(join(s.root, 'sub')).href, name: 'interop sub' }];
      await s.client.sendRootsListChanged();
      const asked = await waitFor(() => s.rootsRequests > before);
      const r = await allowedDirectories(s, asked, join(s.root, 'sub'));
      return { outcome: { asked: Boolean(asked), result: r }, summary: asked ? `asked, ${toolSummary(r)}` : 'server did not ask' };
    }],
    callStep('tools/call: in the new root', 'read_text_file', { path: '{{ROOT}}/sub/inner.txt' }),
    olderProtocol,
  ],

  memory: [
    ...common.initialize,
    ...common.tools,
    ...common.ping,
    setLevel,
    ...resourceLists,
    ['resources/subscribe', async (s) => {
      const r = await s.client.subscribeResource({ uri: 'memory://knowledge-graph' });
      return { outcome: r, summary: 'ok' };
    }],
    ['tools/call', async (s) => {
      // The graph is built in small calls, each far below the proxy's
      // threshold, so that only read_graph, which returns all of it, is
      // over it.
      const out = [];
      for (let b = 0; b < ENTITY_BATCHES; b++) {
        const entities = [];
        for (let i = 0; i < ENTITIES_PER_BATCH; i++) {
          const n = b * ENTITIES_PER_BATCH + i;
          entities.push({ name: `entity-${n}`, entityType: n % 2 ? 'service' : 'person', observations: [`observation ${n} of the interop graph`, `works with entity-${(n + 1) % ENTITIES}`] });
        }
        out.push(await s.client.callTool({ name: 'create_entities', arguments: { entities } }));
      }
      for (let b = 0; b < ENTITY_BATCHES; b++) {
        const relations = [];
        for (let i = 0; i < ENTITIES_PER_BATCH; i++) {
          const n = b * ENTITIES_PER_BATCH + i;
          relations.push({ from: `entity-${n}`, to: `entity-${(n + 1) % ENTITIES}`, relationType: 'works_with' });
        }
        out.push(await s.client.callTool({ name: 'create_relations', arguments: { relations } }));
      }
      return { outcome: out, summary: `${out.length} calls: ${[...new Set(out.map(toolSummary))].join('; ')}` };
    }],
    ['resources: updated notification', async (s) => {
      const got = await waitFor(() => s.updated.length > 0);
      const uris = [...new Set(s.updated)];
      return { outcome: { received: Boolean(got), uris }, summary: got ? `${uris.length} uri` : 'none' };
    }],
    callStep('tools/call: small result', 'search_nodes', { query: 'entity-7' }),
    callStep('tools/call: error', 'create_entities', { entities: 'not a list' }),
    ...common.unknownTool,
    ['completion/complete', async (s) => {
      const r = await s.client.complete({ ref: { type: 'ref/prompt', name: 'no-such-prompt' }, argument: { name: 'x', value: '' } });
      return { outcome: r, summary: r.completion.values.join(', ') || 'no values' };
    }],
    ['resources/read', async (s) => {
      const r = await s.client.readResource({ uri: 'memory://knowledge-graph' });
      return { outcome: r, summary: `${r.contents.length} contents, ${r.contents[0]?.text?.length ?? 0} chars` };
    }],
    ['tools/call: offloaded read_graph', async (s) => {
      const r = await s.client.callTool({ name: 'read_graph', arguments: {} });
      const sc = r.structuredContent;
      return { outcome: r, summary: sc?.offloaded ? 'offloaded' : `${sc?.entities?.length} entities, ${sc?.relations?.length} relations` };
    }],
    ['resources/unsubscribe', async (s) => {
      // No update after it (last: it changes the graph).
      const r = await s.client.unsubscribeResource({ uri: 'memory://knowledge-graph' });
      const before = s.updated.length;
      await s.client.callTool({ name: 'add_observations', arguments: { observations: [{ entityName: 'entity-0', contents: ['seen after the unsubscribe'] }] } });
      await s.client.ping();
      return { outcome: { result: r, updatesAfter: s.updated.length - before }, summary: `ok, ${s.updated.length - before} updates after` };
    }],
    olderProtocol,
  ],
};

// allowedDirectories returns server-filesystem's list_allowed_directories
// once it holds dir (it takes the roots in after answering the request for
// them), or at once when the server did not ask for the roots.
async function allowedDirectories(s, asked, dir) {
  const list = () => s.client.callTool({ name: 'list_allowed_directories', arguments: {} });
  if (!asked) return list();
  return (await waitFor(async () => {
    const x = await list();
    return JSON.stringify(x).includes(dir) ? x : null;
  })) || list();
}

const ENTITY_BATCHES = 10;
const ENTITIES_PER_BATCH = 4;
const ENTITIES = ENTITY_BATCHES * ENTITIES_PER_BATCH;

// substitute replaces {{ROOT}} in the string arguments of a call.
function substitute(v, root) {
  if (typeof v === 'string') return v.replaceAll('{{ROOT}}', root);
  if (Array.isArray(v)) return v.map((x) => substitute(x, root));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, substitute(x, root)]));
  return v;
}

// connect starts the server command of opts and connects a new session to
// it, asking for protocolVersion if given (else the client's latest).
async function connect(opts, protocolVersion) {
  const s = new Session(opts.root);
  s.opts = opts;
  const callTool = s.client.callTool.bind(s.client);
  s.client.callTool = (params, schema, options) => callTool({ ...params, arguments: substitute(params.arguments, opts.root) }, schema, options);
  const transport = new StdioClientTransport({ command: opts.command, args: opts.args, env: { ...process.env }, stderr: 'inherit' });
  // The client sets onmessage before it starts the transport: wrap it
  // there to see every message.
  const start = transport.start.bind(transport);
  transport.start = () => {
    const onmessage = transport.onmessage;
    transport.onmessage = (m, extra) => {
      s.received.push(m);
      onmessage?.(m, extra);
    };
    return start();
  };
  if (protocolVersion) {
    const send = transport.send.bind(transport);
    transport.send = (m, o) => send(m.method === 'initialize' ? { ...m, params: { ...m.params, protocolVersion } } : m, o);
  }
  await s.client.connect(transport);
  return s;
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  mkdirSync(join(opts.root, 'sub'), { recursive: true });
  writeFileSync(join(opts.root, 'small.txt'), 'hello\nworld\n');
  writeFileSync(join(opts.root, 'sub', 'inner.txt'), 'inner file\n');

  let s;
  try {
    s = await connect(opts);
  } catch (err) {
    console.error(`matrix.mjs: connecting to ${opts.command}: ${err.message}`);
    process.exit(2);
  }

  const out = {};
  for (const [name, fn] of SERVERS[opts.server]) {
    let rec;
    try {
      rec = await fn(s);
    } catch (err) {
      rec = { outcome: errorOutcome(err), summary: `error ${err?.code ?? ''}`.trim() };
    }
    out[name] = { outcome: normalize(rec.outcome, opts.root), summary: normalize(rec.summary, opts.root) };
  }
  writeFileSync(opts.out, JSON.stringify(out, null, 2) + '\n');
  await s.client.close().catch(() => {});
  console.log(`matrix.mjs: ${Object.keys(out).length} features recorded in ${opts.out}`);
}

main().catch((err) => {
  console.error(`matrix.mjs: ${err.stack ?? err}`);
  process.exit(2);
});
