/**
 * The order test files start in: the longest first, so that no long file starts last and keeps
 * the run going alone at its end. Vitest's own order is right when it knows the files' durations
 * (its cache of an earlier run); without it (a clean clone, CI) it goes by file size, which mixes
 * 10 ms unit files with e2e files that wait minutes on servers, timers and processes. Then the
 * tiers decide: e2e, integration, replay (each in vitest's order). The unit tier runs in a pool
 * of its own (vitest.config.ts), ordered the same way.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** The folders of the `server` project (vitest.config.ts), longest files first. */
export const SERVER_TIERS = ['e2e', 'integration', 'replay'];

const TIER_ORDER = [...SERVER_TIERS, 'unit'];

function tierRank(spec: TestSpecification): number {
  const tier = /[\\/]tests[\\/]([^\\/]+)[\\/]/.exec(spec.moduleId)?.[1] ?? '';
  const rank = TIER_ORDER.indexOf(tier);
  return rank === -1 ? TIER_ORDER.length : rank;
}

export default class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const known = sorted.every((spec) => this.knownDuration(spec));
    if (known) return sorted;
    // Array.prototype.sort is stable: within a tier, vitest's order stays.
    return [...sorted].sort((a, b) => tierRank(a) - tierRank(b));
  }

  private knownDuration(spec: TestSpecification): boolean {
    const key = `${spec.project.name}:${spec.moduleId.slice(this.ctx.config.root.length + 1)}`;
    return this.ctx.cache.getFileTestResults(key) !== undefined;
  }
}
