/** Types of eslint/layers.js for the tests that use its rule. */
import type { Linter } from 'eslint';

export function placeOf(file: string): string;
export const layersConfig: Linter.Config;
/** The command files (absolute paths) that a command table's text loads. */
export function commandFilesOf(tableText: string): Set<string>;
