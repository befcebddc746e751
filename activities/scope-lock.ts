/**
 * The scope lock's activities: the Temporal client calls that workflow code cannot make itself.
 * `requestScopes` signals-with-start a lock workflow (the first request of a domain starts it);
 * `describeRuns` tells the lock which of its runs still run (liveness: a run terminated from the
 * Web UI never says goodbye); `findScopeHolders` lists the running loops whose memo says they
 * hold scopes of a domain (the rebuild of a lock workflow terminated by hand).
 *
 * The wire names (workflow type, signal, memo key) come in the inputs, from the workflows'
 * definitions: activities import types only from workflows/.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type {
  DescribeRunsInput,
  DescribeRunsResult,
  FindScopeHoldersInput,
  FoundScopeHolder,
  RequestScopesInput,
} from '../workflows/activity-types.js';
import type { ScopeLockMemo } from '../workflows/scope-lock-definitions.js';

/** How many runs `describeRuns` describes at once. */
const DESCRIBE_CONCURRENCY = 8;

function needClient(client: Client | undefined): Client {
  if (client) return client;
  throw ApplicationFailure.nonRetryable(
    'this worker has no Temporal client, which scope locks need (create it with createLoopWorker, or pass activityDeps.client)',
    'NoTemporalClient',
  );
}

export function makeScopeLockActivities(client: Client | undefined): {
  requestScopes: (input: RequestScopesInput) => Promise<void>;
  describeRuns: (input: DescribeRunsInput) => Promise<DescribeRunsResult>;
  findScopeHolders: (input: FindScopeHoldersInput) => Promise<FoundScopeHolder[]>;
} {
  return {
    async requestScopes(input) {
      await needClient(client).workflow.signalWithStart(input.workflowType, {
        workflowId: input.workflowId,
        taskQueue: input.taskQueue,
        args: [input.lockInput],
        signal: input.signal,
        signalArgs: [input.request],
        staticSummary: `ll-loop scope lock: ${input.lockInput.domain}`.slice(0, 190),
        memo: { lock_domain: input.lockInput.domain },
      });
    },

    async describeRuns(input) {
      const c = needClient(client);
      const gone: string[] = [];
      for (let i = 0; i < input.runs.length; i += DESCRIBE_CONCURRENCY) {
        await Promise.all(
          input.runs.slice(i, i + DESCRIBE_CONCURRENCY).map(async (run) => {
            try {
              // The latest run of the id: a run continued as new is still the same holder.
              const description = await c.workflow.getHandle(run).describe();
              if (description.status.name !== 'RUNNING') gone.push(run);
            } catch (err) {
              // Anything else (the server busy, a lost connection) is retried by Temporal.
              if (err instanceof WorkflowNotFoundError) gone.push(run);
              else throw err;
            }
          }),
        );
      }
      return { gone };
    },

    async findScopeHolders(input) {
      const c = needClient(client);
      const found: FoundScopeHolder[] = [];
      const query = `WorkflowType = '${input.loopWorkflowType}' AND ExecutionStatus = 'Running'`;
      for await (const execution of c.workflow.list({ query })) {
        const listed = execution.memo?.[input.memoKey] as ScopeLockMemo | undefined;
        if (listed?.domain !== input.domain) continue;
        // Visibility may lag; the run's own record is current (and says whether it still runs).
        const description = await c.workflow
          .getHandle(execution.workflowId)
          .describe()
          .catch((err: unknown) => {
            if (err instanceof WorkflowNotFoundError) return undefined;
            throw err;
          });
        const memo = description?.memo?.[input.memoKey] as ScopeLockMemo | undefined;
        if (description?.status.name !== 'RUNNING' || memo?.domain !== input.domain) continue;
        found.push({ run: execution.workflowId, scopes: memo.scopes, sinceMs: memo.since_ms });
      }
      return found;
    },
  };
}
