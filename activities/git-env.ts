/**
 * The environment of every git call ll-loop makes: no prompt for credentials (a run is unattended),
 * the C locale (messages are read), no optional locks (a listing never blocks the user's git).
 * No imports: the action spawner's files (activities/checkout-files.ts) use it too.
 */
export const GIT_ENV = {
  GIT_TERMINAL_PROMPT: '0',
  GIT_ASKPASS: 'true',
  SSH_ASKPASS: 'true',
  GCM_INTERACTIVE: 'never',
  LC_ALL: 'C',
  GIT_OPTIONAL_LOCKS: '0',
} as const;
