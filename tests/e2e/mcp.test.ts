/**
 * `ll-loop mcp` through the built binary, driven by the MCP SDK's own client over both
 * transports, on the test run's dev server (TEMPORAL_ADDRESS): the tools and their schemas and
 * annotations, a run started with start_run and followed to its end with run_status and
 * run_logs, a tool error with its fix, `--read-only`, create_loop, the HTTP token and Host
 * check, and a run read and subscribed to as a resource.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { BIN } from '../support/cli.js';
import {
  call,
  completedStatus,
  definedEnv,
  mcpClients,
  ok,
  QUICK,
  READ_ONLY,
  textOf,
  TOOLS,
} from '../support/mcp-clients.js';
import { waitFor } from '../support/processes.js';

const PREFIX = 'll-loop-e2e-mcp-';
let cwd: string;
let env: Record<string, string>;
const mcp = mcpClients();

beforeAll(() => {
  cwd = mkdtempSync(join(tmpdir(), PREFIX));
  mkdirSync(join(cwd, '.loops'));
  writeFileSync(join(cwd, '.loops', 'quick.yaml'), QUICK);
  writeFileSync(
    join(cwd, '.loops', 'gated.yaml'),
    [
      'name: gated',
      'initial: wait',
      'states:',
      '  wait:',
      '    action: "while [ ! -f go ]; do sleep 0.05; done; echo went"',
      '    next: done',
      '  done:',
      '    terminal: true',
      '',
    ].join('\n'),
  );
  env = {
    ...definedEnv(process.env),
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    NO_COLOR: '1',
    LL_MCP_POLL_MS: '200',
  };
});

afterAll(() => mcp.closeAll());

describe('ll-loop mcp over stdio', () => {
  it('lists its tools with input and output schemas and read-only or destructive annotations', async () => {
    const client = await mcp.stdio({ cwd, env });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(TOOLS);
    for (const tool of tools) {
      expect(tool.inputSchema.type, tool.name).toBe('object');
      expect(tool.outputSchema?.type, tool.name).toBe('object');
      expect(tool.annotations?.readOnlyHint, tool.name).toBe(READ_ONLY.includes(tool.name));
    }
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get('stop_run')!.annotations?.destructiveHint).toBe(true);
    expect(byName.get('steer')!.annotations?.destructiveHint).toBe(true);
    expect(byName.get('start_run')!.annotations?.destructiveHint).toBe(false);
    expect(byName.get('start_run')!.inputSchema.required).toEqual(['loop']);
    expect(Object.keys(byName.get('run_status')!.outputSchema!.properties!)).toEqual(
      expect.arrayContaining(['id', 'loop', 'open', 'status']),
    );
    const loops = await ok(client, 'list_loops', {});
    expect((loops.loops as Array<{ name: string; source: string }>).filter((l) => l.source === 'project')).toEqual([
      expect.objectContaining({ name: 'gated', valid: true }),
      expect.objectContaining({ name: 'quick', valid: true }),
    ]);
    const shown = await ok(client, 'show_loop', { loop: 'quick', context: { word: 'hi' } });
    expect(shown.mermaid).toContain('say');
    expect((shown.definition as { context: Record<string, string> }).context.word).toBe('hi');
  });

  it('start_run returns the run id at once; run_status follows it to completed; run_logs has its output', async () => {
    const client = await mcp.stdio({ cwd, env });
    const started = await ok(client, 'start_run', { loop: 'quick', context: { word: 'mcp' } });
    const id = started.run_id as string;
    expect(id).toMatch(/^quick-/);
    expect(started.resource).toBe(`ll-loop://runs/${id}`);
    const status = await completedStatus(client, id);
    expect(status).toMatchObject({ id, loop: 'quick', open: false });
    const logs = await ok(client, 'run_logs', { run: id });
    expect(JSON.stringify(logs.actions)).toContain('said mcp');
    const past = await ok(client, 'list_runs', { loop: 'quick' });
    expect((past.runs as Array<{ id: string }>).map((r) => r.id)).toContain(id);
  });

  it('takes a context value given as a JSON number or boolean as its text, as `--context` gives it', async () => {
    const client = await mcp.stdio({ cwd, env });
    const shown = await ok(client, 'show_loop', { loop: 'quick', context: { word: true } });
    expect((shown.definition as { context: Record<string, string> }).context.word).toBe('true');
    const started = await ok(client, 'start_run', { loop: 'quick', context: { word: 42 } });
    const id = started.run_id as string;
    await completedStatus(client, id);
    expect(JSON.stringify((await ok(client, 'run_logs', { run: id })).actions)).toContain('said 42');
    // Anything else is refused by the schema, naming the key.
    const nested = await call(client, 'start_run', { loop: 'quick', context: { word: { a: 1 } } }).catch(
      (e: Error) => e,
    );
    expect(nested instanceof Error ? nested.message : textOf(nested)).toContain('word');
  });

  it('a tool error is a tool result with the error and its fix, and the server goes on', async () => {
    const client = await mcp.stdio({ cwd, env });
    const unknown = await call(client, 'start_run', { loop: 'nope' });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toMatch(/^error: no loop named "nope"/);
    expect(textOf(unknown)).toMatch(/\nfix: create \.loops\/nope\.yaml/);
    const bad = await call(client, 'start_run', { loop: 'quick', context: { wrod: 'x' } });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toContain('wrod');
    // A required input not given: the call's context is what to fix, not the (built-in) loop file.
    const needs = await call(client, 'start_run', { loop: 'fix-bug' });
    expect(needs.isError).toBe(true);
    expect(textOf(needs)).toContain('loop "fix-bug" needs "bug"');
    expect(textOf(needs)).toContain('fix: start it again with context: {"bug":"…"}');
    expect(textOf(needs)).not.toContain('not a valid loop');
    const missing = await call(client, 'run_status', { run: 'no-such-run-20000101-000000' });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toContain('fix:');
    expect((await ok(client, 'validate_loop', { loop: 'quick' })).valid).toBe(true);
  });

  it("a stray line printed to stdout goes to stderr: the protocol's stream stays whole", async () => {
    // A preload that prints with console.log when told (SIGUSR2), as a layer below might.
    const preload = `data:text/javascript,process.on('SIGUSR2', () => console.log('stray-line'))`;
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--import', preload, BIN, 'mcp'],
      cwd,
      env,
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const client = await mcp.stdio({ cwd, env }, [], transport);
    process.kill(transport.pid!, 'SIGUSR2');
    await waitFor('the stray line on stderr', () => stderr.includes('stray-line'), 20_000, 20);
    expect((await client.listTools()).tools.length).toBe(TOOLS.length);
  });

  it('--read-only serves only the tools that read', async () => {
    const client = await mcp.stdio({ cwd, env }, ['--read-only']);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(READ_ONLY);
    const refused = await call(client, 'start_run', { loop: 'quick' }).catch((e: Error) => e);
    expect(refused instanceof Error ? refused.message : textOf(refused)).toContain('start_run');
    expect(existsSync(join(cwd, 'go'))).toBe(false);
  });
});

/** A host CLI (LL_HOST_CLI) answering every prompt with one fenced loop, in Claude Code's JSON envelope. */
const HOST_CLI = `#!/usr/bin/env node
const yaml = ['name: echo-twice', 'description: Echo twice.', 'initial: one', 'states:',
  '  one:', '    action: "echo one"', '    next: two', '  two:', '    action: "echo two"', '    next: done',
  '  done:', '    terminal: true', ''].join('\\n');
process.stdout.write(JSON.stringify({ type: 'result', subtype: 'success', is_error: false,
  result: 'Here it is:\\n\\n\\u0060\\u0060\\u0060yaml\\n' + yaml + '\\u0060\\u0060\\u0060\\n', session_id: 's',
  total_cost_usd: 0.05, usage: { input_tokens: 900, output_tokens: 300 } }));
`;

describe('ll-loop mcp: create_loop', () => {
  it('drafts a loop with the host CLI, saves it, and refuses to overwrite it', async () => {
    const host = join(mkdtempSync(join(tmpdir(), 'll-loop-e2e-mcp-host-')), 'host-cli.mjs');
    writeFileSync(host, HOST_CLI);
    chmodSync(host, 0o755);
    const client = await mcp.stdio({ cwd, env: { ...env, LL_HOST_CLI: host } });
    const dry = await ok(client, 'create_loop', { description: 'echo one, then two', dry_run: true });
    expect(dry).toMatchObject({ name: 'echo-twice', saved: false, cost: expect.stringContaining('0.05') });
    expect(existsSync(join(cwd, '.loops', 'echo-twice.yaml'))).toBe(false);
    const saved = await ok(client, 'create_loop', { description: 'echo one, then two', name: 'echo-two' });
    expect(saved).toMatchObject({ name: 'echo-two', saved: true, file: join(cwd, '.loops', 'echo-two.yaml') });
    expect(readFileSync(join(cwd, '.loops', 'echo-two.yaml'), 'utf8')).toContain('name: echo-two');
    expect((await ok(client, 'validate_loop', { loop: 'echo-two' })).valid).toBe(true);
    const again = await call(client, 'create_loop', { description: 'echo one, then two', name: 'echo-two' });
    expect(again.isError).toBe(true);
    expect(textOf(again)).toContain('already exists');
  });
});

describe('ll-loop mcp --http', () => {
  const token = 'e2e-token-0123456789abcdef';

  it('refuses a wrong token (401) and a foreign Host (403)', async () => {
    const url = await mcp.httpServer({ cwd, env }, token);
    await expect(mcp.http(url, 'wrong-token')).rejects.toThrow(/missing or wrong token/);
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    };
    const noToken = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify(init),
    });
    expect(noToken.status).toBe(401);
    // A page of another site whose name was rebound to 127.0.0.1 sends its own Host.
    const rebound = await new Promise<number>((resolve, reject) => {
      const req = request(url, {
        method: 'POST',
        headers: {
          Host: `evil.example:${url.port}`,
          Authorization: `Bearer ${token}`,
          'Content-Type': 'application/json',
        },
      });
      req.once('response', (res) => resolve(res.statusCode ?? 0)).once('error', reject);
      req.end(JSON.stringify(init));
    });
    expect(rebound).toBe(403);
    const client = await mcp.http(url, token);
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(TOOLS);
  });

  it('a run is a resource: read, subscribed to, and its status change notified', async () => {
    const url = await mcp.httpServer({ cwd, env }, token);
    const client = await mcp.http(url, token);
    const updated: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updated.push(n.params.uri));
    const id = (await ok(client, 'start_run', { loop: 'gated' })).run_id as string;
    const uri = `ll-loop://runs/${id}`;
    const read = await client.readResource({ uri });
    const first = JSON.parse((read.contents[0] as { text: string }).text) as { id: string; open: boolean };
    expect(first).toMatchObject({ id, open: true });
    const listed = await client.listResources();
    expect(listed.resources.map((r) => r.uri)).toContain(uri);
    await client.subscribeResource({ uri });
    writeFileSync(join(cwd, 'go'), '');
    await waitFor('a resources/updated notification', () => updated.includes(uri), 60_000, 50);
    let now = { status: '' };
    await waitFor(
      'the resource to read completed',
      async () =>
        (now = JSON.parse(((await client.readResource({ uri })).contents[0] as { text: string }).text) as {
          status: string;
        }).status === 'completed',
      60_000,
      200,
    );
    expect(now.status).toBe('completed');
  });

  it("a run's resource carries its running action's output while it runs", async () => {
    // Written here: the first test lists the project's loops.
    writeFileSync(
      join(cwd, '.loops', 'talky.yaml'),
      [
        'name: talky',
        'initial: work',
        'states:',
        '  work:',
        '    action: "echo working on it; while [ ! -f go-talky ]; do sleep 0.05; done; echo finished"',
        '    next: done',
        '  done:',
        '    terminal: true',
        '',
      ].join('\n'),
    );
    const client = await mcp.stdio({ cwd, env });
    const id = (await ok(client, 'start_run', { loop: 'talky' })).run_id as string;
    const uri = `ll-loop://runs/${id}`;
    type Read = { open: boolean; live_output?: { state: string; text: string } };
    let now: Read = { open: true };
    await waitFor(
      "the resource to show the action's output",
      async () =>
        (now = JSON.parse(
          ((await client.readResource({ uri })).contents[0] as { text: string }).text,
        ) as Read).live_output?.text.includes('working on it') === true,
      60_000,
      100,
    );
    // The action still waits for go-talky: what it printed so far, not its end.
    expect(now).toMatchObject({ open: true, live_output: { state: 'work', text: 'working on it\n' } });
    writeFileSync(join(cwd, 'go-talky'), '');
    await completedStatus(client, id);
    const closed = JSON.parse(((await client.readResource({ uri })).contents[0] as { text: string }).text) as Read;
    expect(closed.live_output).toBeUndefined();
  });
});
