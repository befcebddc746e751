/**
 * `${context.KEY}` references that nothing in a loop's definition gives a value: not its
 * `context:`, not a parameter, not a value `ll-loop run` adds (`run_dir`, `input_hash`), and no
 * `:-fallback`. Validation warns of them (the key may come with `--context`); when a run is about
 * to start, the command line's values are already in `context:`, so one left is a run that would
 * fail at that state: refused before it starts. Pure (part of fsm/definition/validate.ts).
 */
import { error, warning, type Diagnostic } from '../diagnostics.js';
import type { LoopDefinition } from '../schema.js';
import { TemplateSyntaxError, templateRefs, type RefSegment } from '../template.js';
import { stateTemplates } from './template-checks.js';

/** Context keys `ll-loop run` gives a loop that reads them (loader/run-context.ts). */
const RUN_GIVEN: ReadonlySet<string> = new Set(['run_dir', 'input_hash']);

export interface UnsetContextRef {
  path: Diagnostic['path'];
  ref: RefSegment;
  key: string;
}

/** Every reference to a context key the definition gives no value (template syntax errors are checkTemplates'). */
export function unsetContextRefs(def: LoopDefinition): UnsetContextRef[] {
  const out: UnsetContextRef[] = [];
  for (const [name, state] of Object.entries(def.states)) {
    for (const { path, text } of stateTemplates(name, state)) {
      let refs: RefSegment[];
      try {
        refs = templateRefs(text);
      } catch (err) {
        if (err instanceof TemplateSyntaxError) continue;
        throw err;
      }
      for (const ref of refs) {
        const [key] = ref.path;
        if (ref.namespace !== 'context' || key === undefined || ref.fallback !== undefined) continue;
        if (RUN_GIVEN.has(key) || Object.hasOwn(def.context, key) || Object.hasOwn(def.parameters ?? {}, key)) continue;
        out.push({ path, ref, key });
      }
    }
  }
  return out;
}

/**
 * A warning for each unset reference; with `runStarts`, an error (a `required_inputs` key is
 * reported by its own check, once).
 */
export function checkUnsetContext(def: LoopDefinition, runStarts: boolean, out: Diagnostic[]): void {
  const required = new Set(def.required_inputs ?? []);
  for (const { path, ref, key } of unsetContextRefs(def)) {
    if (!runStarts) {
      out.push(
        warning(
          path,
          `${ref.raw} is not defined in context: (ll-loop run refuses to start without it)`,
          `add ${key}: to context: or pass --context ${key}=VALUE when running`,
        ),
      );
    } else if (!required.has(key)) {
      out.push(
        error(
          path,
          `${ref.raw} has no value: the loop's context: does not set "${key}", no parameter declares it, and it was not given; a run would fail at this state`,
          `pass --context ${key}=VALUE, or give it a value under context: (or a parameter with a default) in the loop file`,
        ),
      );
    }
  }
}
