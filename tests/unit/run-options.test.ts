/**
 * A run's options in three parts (workflows/run-options.ts): every option any release recorded
 * belongs to exactly one part, and the parts put together are the options as recorded.
 */
import { describe, expect, it } from 'vitest';
import {
  type LoopRunOptions,
  PLACEMENT_KEYS,
  recordedRunOptions,
  RUN_RULE_KEYS,
  splitRunOptions,
  TUNING_KEYS,
} from '../../workflows/run-options.js';
import { CURRENT_RUN_RULES } from '../../workflows/run-rules.js';
import { committedInputs } from '../replay/histories.js';

describe("a run's options: rules, placement, tuning", () => {
  it('no key is in two parts, and every current rule is a rule', () => {
    const all = [...RUN_RULE_KEYS, ...PLACEMENT_KEYS, ...TUNING_KEYS];
    expect(new Set(all).size).toBe(all.length);
    for (const rule of Object.keys(CURRENT_RUN_RULES)) expect(RUN_RULE_KEYS as readonly string[]).toContain(rule);
  });

  it("every committed history's options split into the parts and back unchanged", () => {
    const inputs = committedInputs();
    expect(inputs.length).toBeGreaterThan(0);
    const known = new Set<string>([...RUN_RULE_KEYS, ...PLACEMENT_KEYS, ...TUNING_KEYS]);
    for (const { where, input } of inputs) {
      const options = input.options as LoopRunOptions;
      expect(
        Object.keys(options).filter((k) => !known.has(k)),
        where,
      ).toEqual([]);
      const parts = splitRunOptions(options);
      expect(parts.placement.cwd, where).toBe(options.cwd);
      expect(recordedRunOptions(parts), where).toEqual(options);
    }
  });

  it("puts a new run's parts together in the order the client always recorded them", () => {
    const options = recordedRunOptions({
      placement: { cwd: '/p', searchAttributes: true },
      tuning: { localActivityMaxTimeoutS: 30 },
      rules: CURRENT_RUN_RULES,
    });
    expect(Object.keys(options)).toEqual([
      'cwd',
      'searchAttributes',
      'localActivityMaxTimeoutS',
      ...Object.keys(CURRENT_RUN_RULES),
    ]);
  });
});
