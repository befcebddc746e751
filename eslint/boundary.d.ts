/** Types of boundary.js, for the TypeScript code that imports it (the boundary test). */
import type { Linter } from 'eslint';

export declare const fsmBoundary: Linter.Config;
export declare const workflowsBoundary: Linter.Config;
export declare const boundaryConfigs: Linter.Config[];
