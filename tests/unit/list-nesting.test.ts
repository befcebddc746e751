/** `list --running` shows each run's children (sub-loops, parallel items) right under it, indented. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NO_WORKER_NOTE } from '../../client/commands/list.js';
import { underParents, withProjects } from '../../client/commands/list-tables.js';

describe('list --running nesting', () => {
  it('puts children under their parent by depth; a child whose parent is not listed stands alone', () => {
    const runs = [
      { id: 'fan.fix_all.1.1', parent: 'fan' },
      { id: 'other' },
      { id: 'fan' },
      { id: 'fan.fix_all.1.0', parent: 'fan' },
      { id: 'fan.fix_all.1.0.sub.1', parent: 'fan.fix_all.1.0' },
      { id: 'orphan.x.1', parent: 'gone' },
    ];
    expect(underParents(runs).map((r) => `${r.depth}:${r.id}`)).toEqual([
      '0:other',
      '0:fan',
      '1:fan.fix_all.1.1',
      '1:fan.fix_all.1.0',
      '2:fan.fix_all.1.0.sub.1',
      '0:orphan.x.1',
    ]);
  });
});

describe('the PROJECT column', () => {
  const header = ['RUN ID', 'LOOP', 'STATE'];
  it('is shown with --all-projects even for one run of one project (it may not be this one)', () => {
    expect(withProjects(header, [['a-1', 'a', 'x']], [{ cwd: '/other' }], true)).toEqual([
      ['RUN ID', 'LOOP', 'PROJECT', 'STATE'],
      ['a-1', 'a', '/other', 'x'],
    ]);
  });
  it('is not shown for this project alone', () => {
    expect(withProjects(header, [['a-1', 'a', 'x']], [{ cwd: '/here' }], false)).toEqual([header, ['a-1', 'a', 'x']]);
  });
});

describe('the note under a run with no worker', () => {
  it('is what docs/cli.md shows, and does not send a person to resume a run that goes on by itself', () => {
    const docs = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'cli.md'), 'utf8');
    expect(docs).toContain(`${NO_WORKER_NOTE}\n`);
    expect(NO_WORKER_NOTE).toMatch(
      /^no worker: nothing runs it at this moment; any ll-loop command in its checkout starts/,
    );
  });
});
