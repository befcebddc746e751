/**
 * The CLI's reading of a server that is not set up for ll-loop: the SDK's own error classes, as
 * the client throws them, become one line with `ll-loop cluster setup` as the fix (exit 7); an
 * SDK wrapper that only says what was attempted gets the server's reason.
 */
import { ServiceError } from '@temporalio/client';
import { NamespaceNotFoundError } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { CliError, toCliError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';
import { adminCommands, retentionFlag } from '../../temporal/cluster-setup.js';

/** A gRPC status error as @grpc/grpc-js builds it: code, details, message. */
function grpcError(code: number, details: string): Error {
  return Object.assign(new Error(`${code} ${details}`), { code, details, metadata: {} });
}

describe('toCliError: a cluster not set up for ll-loop', () => {
  it("the SDK's NamespaceNotFoundError: one line naming the namespace, fix `ll-loop cluster setup`, exit 7", () => {
    const err = toCliError(new NamespaceNotFoundError('default'));
    expect(err).toBeInstanceOf(CliError);
    const cli = err as CliError;
    expect(cli.message).toBe(
      'Temporal namespace "default" does not exist on this server (ll-loop runs need it, with ll-loop\'s search attributes)',
    );
    expect(cli.fix).toContain('ll-loop cluster setup');
    expect(cli.exitCode).toBe(EXIT.infrastructure);
  });

  it("the server's NOT_FOUND for a namespace, wrapped by the SDK", () => {
    const err = toCliError(
      new ServiceError('Failed to list workflows', { cause: grpcError(5, 'Namespace loops is not found.') }),
    );
    expect((err as CliError).message).toContain('namespace "loops" does not exist');
    expect((err as CliError).fix).toContain('ll-loop cluster setup');
  });

  it("the worker's own refusal when it starts (no gRPC code, the core's text with its status dump)", () => {
    const err = toCliError(
      new Error(
        'Namespace nope was not found or otherwise could not be described: Status { code: NotFound, message: "Namespace nope is not found.", details: b"\\x08\\x05", metadata: MetadataMap { headers: {} }, source: None }',
      ),
    );
    expect((err as CliError).message).toBe(
      'Temporal namespace "nope" does not exist on this server (ll-loop runs need it, with ll-loop\'s search attributes)',
    );
    expect((err as CliError).fix).toContain('ll-loop cluster setup');
    expect((err as CliError).exitCode).toBe(EXIT.infrastructure);
  });

  it('a start refused for an unknown search attribute of ours (the first run after setup)', () => {
    const cause = grpcError(3, 'search attribute LoopName is not defined');
    const err = toCliError(new ServiceError('Failed to start Workflow', { cause }));
    expect((err as CliError).message).toContain("ll-loop's search attributes are not registered");
    expect((err as CliError).message).toContain('search attribute LoopName is not defined');
    expect((err as CliError).fix).toContain('ll-loop cluster setup');
    expect((err as CliError).exitCode).toBe(EXIT.infrastructure);
  });

  it('a visibility query naming an attribute the namespace lacks', () => {
    const cause = grpcError(
      3,
      "invalid query: unable to convert filter expression: column name 'LoopCheckout' is not a valid search attribute",
    );
    expect((toCliError(cause) as CliError).fix).toContain('ll-loop cluster setup');
  });

  it('any other wrapped refusal says the server\'s reason, not only "Failed to start Workflow"', () => {
    const err = toCliError(
      new ServiceError('Failed to start Workflow', { cause: grpcError(3, 'WorkflowId is too long') }),
    );
    expect((err as CliError).message).toBe('Failed to start Workflow: WorkflowId is too long');
    expect((err as CliError).exitCode).toBe(EXIT.runError);
  });

  it('a NOT_FOUND that is not about a namespace, and an unrelated INVALID_ARGUMENT, are left alone', () => {
    const notFound = grpcError(5, 'workflow not found for ID: x');
    expect(toCliError(notFound)).toBe(notFound);
    const other = grpcError(3, 'search attribute CustomerId is not defined');
    expect(toCliError(other)).toBe(other);
  });
});

describe('adminCommands: what an administrator runs when the credentials may not', () => {
  it('the namespace with its retention, and every missing attribute in one command', () => {
    expect(
      adminCommands(
        'temporal.example:7233',
        { namespace: 'loops', namespaceExists: false, missing: ['LoopName', 'LoopState'] },
        30 * 86_400_000,
      ),
    ).toEqual([
      'temporal operator namespace create --address temporal.example:7233 --namespace loops --retention 30d',
      'temporal operator search-attribute create --address temporal.example:7233 --namespace loops --name LoopName --name LoopState --type Keyword',
    ]);
  });

  it('retention in whole days where it is, else hours', () => {
    expect(retentionFlag(3 * 86_400_000)).toBe('3d');
    expect(retentionFlag(36 * 3_600_000)).toBe('36h');
  });
});
