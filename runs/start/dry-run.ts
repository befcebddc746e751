/** `ll-loop run --dry-run`: print the execution plan; nothing runs, no server is needed. */
import type { LoopDefinition } from '../../fsm/schema.js';
import { planOf } from '../../fsm/tools/plan.js';

export function printPlan(def: LoopDefinition, json: boolean, out: (t: string) => void): void {
  const plan = planOf(def);
  if (json) {
    out(`${JSON.stringify(plan, null, 2)}\n`);
    return;
  }
  const limits = [`max_iterations ${plan.max_iterations}`];
  if (plan.timeout_s !== undefined) limits.push(`timeout ${plan.timeout_s}s`);
  if (plan.backoff_s !== undefined) limits.push(`backoff ${plan.backoff_s}s`);
  if (!plan.llm_enabled) limits.push('LLM evaluation off');
  out(`Execution plan for ${plan.loop} (${limits.join(', ')}); nothing will run.\n`);
  if (Object.keys(plan.context).length) out(`context: ${JSON.stringify(plan.context)}\n`);
  out('\n');
  for (const state of plan.states) {
    const marks = [
      state.name === plan.initial ? 'initial' : '',
      state.terminal ? (state.failure ? 'terminal, failure' : 'terminal') : '',
    ].filter(Boolean);
    out(`${state.name}${marks.length ? ` (${marks.join(', ')})` : ''}\n`);
    if (state.action)
      out(
        `    ${state.action.kind}: ${state.action.text.trim().split('\n').join('\n        ')}  [timeout ${state.action.timeout_s}s]\n`,
      );
    if (state.subloop) {
      const { loop, passthrough, with: bindings, timeout_s } = state.subloop;
      const how = passthrough ? ' (context passthrough)' : bindings ? ` with ${JSON.stringify(bindings)}` : '';
      out(`    sub-loop: ${loop}${how}${timeout_s === undefined ? '' : `  [timeout ${timeout_s}s]`}\n`);
    }
    if (state.evaluator) out(`    evaluate: ${state.evaluator}\n`);
    for (const t of state.transitions) out(`    ${t.on} → ${t.to}\n`);
  }
}
