/**
 * The order test files start in: the longest first, so that no long file starts last and keeps
 * the run going alone at its end. Vitest's own order is right when it knows every file's duration
 * (its cache of an earlier run). Without it (a clean clone, CI) it went by file size, which mixes
 * 10 ms unit files with e2e files that wait minutes on servers, timers and processes, and a
 * clean clone's run ended on files such as long-loop.test.ts (46 s) started late. So a file's
 * duration is vitest's when it has one, else the one recorded in tests/setup/durations.json (the
 * long files of a full run here: `node tools/record-durations.mjs` writes it); the files with a
 * duration start longest first, then the rest by tier: e2e, integration, replay (each in vitest's
 * order). The unit tier runs in a pool of its own (vitest.config.ts), ordered the same way.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** The folders of the `server` project (vitest.config.ts), longest files first. */
export const SERVER_TIERS = ['e2e', 'integration', 'replay'];

const TIER_ORDER = [...SERVER_TIERS, 'unit'];

function tierRank(spec: TestSpecification): number {
  const tier = /[\\/]tests[\\/]([^\\/]+)[\\/]/.exec(spec.moduleId)?.[1] ?? '';
  const rank = TIER_ORDER.indexOf(tier);
  return rank === -1 ? TIER_ORDER.length : rank;
}

/** `project:path` → seconds, as tools/record-durations.mjs writes them; empty if unreadable. */
function recordedDurations(): Record<string, number> {
  try {
    return JSON.parse(readFileSync(join(import.meta.dirname, 'durations.json'), 'utf8')) as Record<string, number>;
  } catch {
    return {};
  }
}

export default class LongestFirstSequencer extends BaseSequencer {
  private recorded: Record<string, number> | undefined;

  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    if (sorted.every((spec) => this.cachedMs(spec) !== undefined)) return sorted;
    this.recorded ??= recordedDurations();
    const ms = (spec: TestSpecification): number | undefined => {
      const seconds = this.recorded![this.key(spec)];
      return this.cachedMs(spec) ?? (seconds === undefined ? undefined : seconds * 1000);
    };
    // Array.prototype.sort is stable: files of the same tier without a duration keep vitest's order.
    return [...sorted].sort((a, b) => {
      const [da, db] = [ms(a), ms(b)];
      if (da !== undefined && db !== undefined) return db - da;
      if (da !== undefined || db !== undefined) return da !== undefined ? -1 : 1;
      return tierRank(a) - tierRank(b);
    });
  }

  private key(spec: TestSpecification): string {
    return `${spec.project.name}:${spec.moduleId.slice(this.ctx.config.root.length + 1)}`;
  }

  private cachedMs(spec: TestSpecification): number | undefined {
    return this.ctx.cache.getFileTestResults(this.key(spec))?.duration;
  }
}
