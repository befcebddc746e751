/** The workflow bundle's entry point: every workflow type the worker registers. */
export { loopWorkflow } from './loop-workflow.js';
export { scopeLockWorkflow } from './scope-lock-workflow.js';
