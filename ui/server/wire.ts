/**
 * What the `ll-loop ui` server and its page say to each other: the JSON of its routes and the
 * messages of its event streams. Types only: the page imports them (ui/page/), the server
 * produces them (ui/server/).
 */
import type { TimedEvent } from '../../fsm/run/events.js';
import type { HumanReply } from '../../fsm/human.js';

/** One row of the runs list. */
export interface RunRow {
  id: string;
  loop: string;
  /** Temporal's execution status, lower case (`running`, `completed`, `failed`, `canceled`, …). */
  status: string;
  open: boolean;
  /** How the run stands or ended, in the outcome words (reporters/outcome-words.ts). */
  outcome: string;
  state?: string;
  iteration?: number;
  started: string;
  /** Set once closed. */
  closed?: string;
  /** A sub-loop's parent run. */
  parent?: string;
}

/** A node of the run's graph (client/show/graph.ts, flattened for the page). */
export interface GraphNode {
  name: string;
  initial: boolean;
  terminal: boolean;
  failure: boolean;
  subLoop?: string;
  /** The action, shortened (for the node's title). */
  action?: string;
  /** An approval (human) state that takes an edit: it routes one (`on_edit`). */
  editable?: boolean;
}

export interface GraphEdge {
  from: string;
  to: string;
  labels: string[];
  back: boolean;
}

export interface RunGraph {
  loop: string;
  nodes: GraphNode[];
  edges: GraphEdge[];
}

/** Messages of `GET /api/runs/stream`. */
export type RunsMessage = { type: 'runs'; runs: RunRow[] } | { type: 'error'; message: string };

/** Messages of `GET /api/run/<id>/stream`. */
export type RunMessage =
  | { type: 'graph'; graph: RunGraph }
  | { type: 'events'; events: TimedEvent[] }
  /** Output of a running action, as it is written (its `action_complete` carries the whole of it). */
  | { type: 'output'; workflowId: string; state: string; pass: number; text: string; restart?: boolean }
  /** The run entered `state` (event `seq`), from its events file, ahead of the replayed history. */
  | { type: 'live_state'; seq: number; state: string }
  | { type: 'captured'; captured: Record<string, unknown> }
  /**
   * The run closed: Temporal's status (lower case), its outcome (reporters/outcome-words.ts)
   * and how it ended as `ll-loop status` says it (the end line, with the error and its fix).
   */
  | { type: 'end'; status: string; outcome: string; summary: string }
  /** Something the page should say (Temporal unreachable, a warning); an empty message clears it. */
  | { type: 'notice'; message: string }
  | { type: 'error'; message: string };

/** The answer of a POST action. */
export interface ActionAnswer {
  ok: boolean;
  message: string;
  /** The run a rerun or a resume started (the page then shows it). */
  run?: string;
}

/**
 * What a page may ask a run to do besides stop and resume (`POST /api/run/<id>/<action>` with
 * this JSON as its body, less `action`): the same requests as `ll-loop pause`, `unpause`,
 * `steer`, `answer` and `rerun`.
 */
export type ActRequest =
  | { action: 'pause' }
  | { action: 'unpause' }
  /** `context`: `K=V` lines, as `--context` takes them. */
  | { action: 'steer'; to: string; note?: string; context?: string[] }
  | { action: 'answer'; reply: HumanReply }
  /** `from`: `STATE` or `STATE#N` (its N-th visit). */
  | { action: 'rerun'; from: string; context?: string[] };

/** `GET /api/run/<id>/status`: what an open run waits for (its status query), null when it is closed or does not answer (404 for no such run). */
export interface RunStatusView {
  phase: string;
  state: string;
  human?: {
    state: string;
    prompt: string;
    ask: string;
    options?: string[];
    schema?: unknown;
    since: string;
    deadline?: string;
  };
  paused?: { by: string; since: string; holding: boolean; next?: string };
  rate_limited?: { kind: string; message: string; resumes_at: string };
  /** A parallel state under way: its items running now, with their child runs' ids. */
  fanout?: {
    state: string;
    total: number;
    done: number;
    failed: number;
    running: Array<{ index: number; run_id: string }>;
  };
}
