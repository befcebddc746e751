/**
 * What a run's start sends besides its input, kept within Temporal's limits, and Temporal's
 * refusal of a payload said plainly when it happens anyway (a server with a lower limit).
 */
import { someCause, type ErrorLike } from '../../errors/error-causes.js';
import { CliError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';
import { GRPC } from '../../errors/grpc-status.js';
import { sizeText, TEMPORAL_PAYLOAD_LIMIT } from '../../loader/payload-limit.js';

/** The description as the Web UI's details show it: a glance, not the whole text. */
const DETAILS_DESCRIPTION_CHARS = 2_000;

export function detailsDescription(description: string | undefined): string {
  if (!description) return '';
  const chars = [...description];
  return chars.length <= DETAILS_DESCRIPTION_CHARS
    ? description
    : `${chars.slice(0, DETAILS_DESCRIPTION_CHARS - 1).join('')}…`;
}

/** Temporal refused the start because a payload was too large: a CliError naming the limit and the fix. */
export function payloadRefusal(err: unknown, inputBytes: number): CliError | undefined {
  const tooLarge = (e: ErrorLike) =>
    e.code === GRPC.invalidArgument && typeof e.message === 'string' && /size exceeds limit/i.test(e.message);
  if (!someCause(err, tooLarge)) return undefined;
  return new CliError(
    `Temporal refused to start the run: its input is ${sizeText(inputBytes)}, over this server's payload limit ` +
      `(${sizeText(TEMPORAL_PAYLOAD_LIMIT)} by default, limit.blobSize.error)`,
    "keep large text in files the actions read instead of in the loop file or its context values, or raise the server's limit.blobSize.error",
    EXIT.usage,
  );
}
