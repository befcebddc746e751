/** Types of eslint/layers.js for the tests that use its rule. */
import type { Linter } from 'eslint';

export function placeOf(file: string): string;
export function judgeImport(fromFile: string, spec: string, typeOnly: boolean): string | undefined;
export const ALLOWED: Record<string, readonly string[]>;
export const layersConfig: Linter.Config;
