/**
 * Interval of activity heartbeats while a process runs. Each one is also when a cancellation
 * request is picked up (worker/create-worker.ts), so it bounds how long a stop takes.
 */
export const HEARTBEAT_MS = 1000;
