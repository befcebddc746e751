/** `npm run build`: writes every command's usage line for `ll-loop --help` (usage-index.ts). */
import { writeFileSync } from 'node:fs';
import { allCommands } from './index.js';
import { USAGE_FILE } from './usage-index.js';

const lines = Object.fromEntries((await allCommands()).map(([name, spec]) => [name, spec.usage]));
writeFileSync(USAGE_FILE, `${JSON.stringify(lines, null, 2)}\n`);
console.log(`usage lines: ${USAGE_FILE} (${Object.keys(lines).length} commands)`);
// The specs loaded the Temporal SDK, whose native threads may keep the process alive.
process.exit(0);
