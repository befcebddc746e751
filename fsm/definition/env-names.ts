/**
 * The environment variables a loop references anywhere (`${env.NAME}` in any string of its
 * definition: actions, prompts, evaluator settings, context). Their values are what the worker
 * masks in every action's output (activities/secret-mask.ts), since a user expects any value of a
 * variable the loop names to stay out of logs and history, not only those of the state at hand.
 */
import type { LoopDefinition } from '../schema.js';
import { templateRefs } from '../template.js';

/** Sorted, distinct names of the variables `def` references; malformed templates are skipped. */
export function loopEnvNames(def: LoopDefinition): string[] {
  const names = new Set<string>();
  const visit = (v: unknown): void => {
    if (typeof v === 'string') {
      if (!v.includes('${env.')) return;
      let refs;
      try {
        refs = templateRefs(v);
      } catch {
        // A template that does not parse is reported where it is used; it names nothing here.
        return;
      }
      for (const r of refs) if (r.namespace === 'env' && r.path[0] !== undefined) names.add(r.path[0]);
    } else if (Array.isArray(v)) v.forEach(visit);
    else if (typeof v === 'object' && v !== null) Object.values(v).forEach(visit);
  };
  visit(def);
  return [...names].sort();
}
