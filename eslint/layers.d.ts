/** Types of eslint/layers.js for the tests that use its rule. */
import type { Linter } from 'eslint';

export function placeOf(file: string): string;
export const layersConfig: Linter.Config;
