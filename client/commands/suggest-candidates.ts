/**
 * The loops `ll-loop suggest` ranks: the project's (`.loops/`) and the built-in ones, with what
 * `list` and `list --builtin` show of them (description, category, labels, parameters). A file
 * that does not load is left out: `ll-loop list` and `validate` report it.
 */
import { builtinLoopFile, builtinLoopNames } from '../../loader/catalog.js';
import { listLoopNames, loadLoop, loadLoopFile, type LoadedLoop } from '../../loader/load.js';
import type { Candidate } from './suggest-rank.js';

function candidate(name: string, source: Candidate['source'], loaded: LoadedLoop): Candidate[] {
  const def = loaded.definition;
  if (!def) return [];
  const parameters = Object.fromEntries(Object.entries(def.parameters ?? {}).map(([k, p]) => [k, p.description]));
  return [
    {
      name,
      source,
      ...(def.description === undefined ? {} : { description: def.description }),
      ...(def.category === undefined ? {} : { category: def.category }),
      labels: def.labels,
      parameters,
    },
  ];
}

/** Every loadable loop of the project and of ll-loop. */
export function suggestCandidates(cwd: string): Candidate[] {
  const project = listLoopNames(cwd).flatMap((name) => candidate(name, 'project', loadLoop(name, cwd)));
  const builtin = builtinLoopNames().flatMap((name) =>
    candidate(name, 'builtin', loadLoopFile(builtinLoopFile(name)!, {}, cwd)),
  );
  return [...project, ...builtin];
}
