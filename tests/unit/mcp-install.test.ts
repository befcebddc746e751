/**
 * `ll-loop mcp install --client C`: each client's file gets an `ll-loop` entry that starts
 * `ll-loop mcp` over stdio; the file's other servers and settings are kept; a file that is not
 * its format is left alone with the fix; `--print` writes nothing.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../support/cli.js';

let project: string;
let home: string;
const cli = (args: string[]) =>
  runCliInProcess(args, { cwd: project, env: { ...process.env, HOME: home, CODEX_HOME: '', PATH: '/nonexistent' } });

beforeEach(() => {
  project = mkdtempSync(join(tmpdir(), 'll-loop-mcp-install-'));
  mkdirSync(join(project, '.loops'));
  home = mkdtempSync(join(tmpdir(), 'll-loop-mcp-home-'));
});

const json = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as Record<string, Record<string, unknown>>;

describe('ll-loop mcp install', () => {
  it("claude-code: .mcp.json gets the ll-loop entry, the user's other servers and keys kept", async () => {
    const file = join(project, '.mcp.json');
    writeFileSync(file, JSON.stringify({ mcpServers: { other: { command: 'other-mcp', args: ['x'] } }, note: 1 }));
    const r = await cli(['mcp', 'install', '--client', 'claude-code']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(file);
    const doc = json(file);
    expect(doc.note).toBe(1);
    expect(doc.mcpServers!.other).toEqual({ command: 'other-mcp', args: ['x'] });
    const entry = doc.mcpServers!['ll-loop'] as { type: string; command: string; args: string[] };
    expect(entry.type).toBe('stdio');
    // ll-loop is not on this PATH: this Node runs this package's bin.
    expect(entry.command).toBe(process.execPath);
    expect(entry.args.slice(-1)).toEqual(['mcp']);
    expect(entry.args[0]).toMatch(/bin[/\\]ll-loop\.js$/);
    // Installing again replaces the entry; nothing else changes.
    expect((await cli(['mcp', 'install', '--client', 'claude-code', '--read-only'])).code).toBe(0);
    const again = json(file);
    expect(Object.keys(again.mcpServers!)).toEqual(['other', 'll-loop']);
    expect((again.mcpServers!['ll-loop'] as { args: string[] }).args.slice(-2)).toEqual(['mcp', '--read-only']);
  });

  it("cursor, vscode and gemini: the project's own file, under each client's key", async () => {
    for (const client of ['cursor', 'vscode', 'gemini'])
      expect((await cli(['mcp', 'install', '--client', client])).code).toBe(0);
    expect(json(join(project, '.cursor', 'mcp.json')).mcpServers!['ll-loop']).toMatchObject({
      command: process.execPath,
    });
    expect(json(join(project, '.vscode', 'mcp.json')).servers!['ll-loop']).toMatchObject({ type: 'stdio' });
    expect(json(join(project, '.gemini', 'settings.json')).mcpServers!['ll-loop']).toBeDefined();
  });

  it('codex: ~/.codex/config.toml gets [mcp_servers.ll-loop] with the project as cwd, the rest kept', async () => {
    const file = join(home, '.codex', 'config.toml');
    mkdirSync(join(home, '.codex'));
    writeFileSync(
      file,
      [
        'model = "o4"',
        '',
        '[mcp_servers.other]',
        'command = "other-mcp"',
        '',
        '[mcp_servers.ll-loop]',
        'command = "old-ll-loop"',
        '',
        '[mcp_servers.ll-loop.env]',
        'A = "1"',
        '',
        '[[skills]]',
        'name = "kept"',
        '',
        '[profiles.fast]',
        'model = "mini"',
        '',
      ].join('\n'),
    );
    const r = await cli(['mcp', 'install', '--client', 'codex']);
    expect(r.code, r.stderr).toBe(0);
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('model = "o4"');
    expect(text).toContain('[mcp_servers.other]\ncommand = "other-mcp"');
    expect(text).toContain('[profiles.fast]\nmodel = "mini"');
    expect(text).toContain('[[skills]]\nname = "kept"');
    expect(text).not.toContain('old-ll-loop');
    expect(text).not.toContain('A = "1"');
    expect(text.match(/\[mcp_servers\.ll-loop\]/g)).toHaveLength(1);
    expect(text).toContain(`cwd = ${JSON.stringify(project)}`);
    expect(text).toContain(`command = ${JSON.stringify(process.execPath)}`);
  });

  it('a file that is not JSON is left alone, with the entry to add by hand', async () => {
    const file = join(project, '.mcp.json');
    writeFileSync(file, '{ "mcpServers": { // a comment\n } }');
    const r = await cli(['mcp', 'install', '--client', 'claude-code']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${file} is not a JSON object`);
    expect(r.stderr).toMatch(/fix: add the entry to its "mcpServers" by hand: "ll-loop": \{/);
    expect(readFileSync(file, 'utf8')).toBe('{ "mcpServers": { // a comment\n } }');
  });

  it('--print writes nothing; an unknown client is refused with the known ones', async () => {
    const printed = await cli(['mcp', 'install', '--client', 'cursor', '--print']);
    expect(printed.code).toBe(0);
    expect(printed.stdout).toContain(`# ${join(project, '.cursor', 'mcp.json')}`);
    expect(printed.stdout).toContain('"ll-loop": {');
    expect(existsSync(join(project, '.cursor'))).toBe(false);
    const unknown = await cli(['mcp', 'install', '--client', 'zed']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('--client "zed" is not a client ll-loop knows');
    expect(unknown.stderr).toContain('fix: use one of: claude-code, cursor, vscode, codex, gemini');
  });
});
