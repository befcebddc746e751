/**
 * A tiny HTTP server speaking the real wire formats of the Anthropic Messages API
 * (`POST /v1/messages`) and OpenAI Chat Completions (`POST /v1/chat/completions`), for tests of
 * the API providers through their official SDKs. The requested `model` picks the answer:
 * - `verdict-<v>`: a valid structured verdict `<v>` (Anthropic: a tool_use block; OpenAI: JSON
 *   message content), with usage;
 * - `verdicts-<a>,<b>,…`: the n-th request for this model (per API) answers as `verdict-<n-th>`,
 *   the last one repeating (an answer that misses its schema, then one asked again); a suffix
 *   after `#` only makes the model name, and so its count, a test's own;
 * - `rate-limited`: HTTP 429 with `retry-after: 42` and the API's error body;
 * - `limited-once-<s>:<model>`: the first request for it is a 429 with `retry-after: <s>`, later
 *   ones answer as `<model>` does (a rate limit that passes);
 * - `garbage`: HTTP 200 with an HTML body;
 * - `prose`: a well-formed response whose answer is text, not JSON;
 * - `echo:<text>`: like `prose`, answering `echo:<text>` (to see what an error quotes);
 * - `overloaded`: HTTP 529 with Anthropic's `overloaded_error` body (OpenAI: 503);
 * - `no-text`: a well-formed response without text (Anthropic: no content blocks; OpenAI: null content);
 * - `slow-<ms>`: like `prose`, answered after <ms> milliseconds (a request in flight; `closed`
 *   counts the requests whose client went away before the answer).
 * - `refusal`: the model declines (Anthropic: `stop_reason: "refusal"`, no content; OpenAI: the
 *   message's `refusal` text, null content);
 * - a model given answers with `script(model, texts)`: the n-th request for it answers the n-th
 *   text as prose (the last one repeating), e.g. loop drafts for `ll-loop create --describe`;
 * - `findings-<state>`: a review (`ll-loop review --llm`): `{"findings": [one warning about <state>]}`,
 *   given as a verdict is;
 * - any of these with `+cost-<usd>` appended: the usage also states that cost (Anthropic's
 *   `cost_usd`, OpenAI-compatible gateways' `cost`), for budgets.
 * Every request is recorded (path, headers, parsed body) for the test to inspect.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

export interface FakeLlmApi {
  /** `http://127.0.0.1:<port>`: the Anthropic base URL; OpenAI's is `${url}/v1`. */
  url: string;
  requests: RecordedRequest[];
  /** Requests whose connection closed before they were answered (a cancelled call). */
  closed: () => number;
  /** Answer the requests for `model` with `texts` in turn (the last one repeating), per API. */
  script: (model: string, texts: string[]) => void;
  close: () => Promise<void>;
}

export const RETRY_AFTER_S = 42;

export async function startFakeLlmApi(): Promise<FakeLlmApi> {
  const requests: RecordedRequest[] = [];
  let closed = 0;
  /** `limited-once-…` models already answered with their one 429. */
  const limitedOnce = new Set<string>();
  /** How many requests each `verdicts-…` model (per API path) has had. */
  const asked = new Map<string, number>();
  /** Texts scripted per model (`script`). */
  const scripts = new Map<string, string[]>();
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (raw += c));
    req.on('end', () => {
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        // recorded as empty: the test sees it
      }
      const path = req.url ?? '';
      requests.push({ path, headers: req.headers, body });
      const named = String(body['model'] ?? '');
      const costAt = named.indexOf('+cost-');
      const model = costAt < 0 ? named : named.slice(0, costAt);
      const cost = costAt < 0 ? undefined : Number(named.slice(costAt + '+cost-'.length));
      const json = (status: number, value: unknown, headers: Record<string, string> = {}): void => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(JSON.stringify(value));
      };
      const anthropic = path === '/v1/messages';
      if (!anthropic && path !== '/v1/chat/completions') return json(404, { error: { message: `no route ${path}` } });
      const once = /^limited-once-(\d+):(.*)$/.exec(model);
      if (once && !limitedOnce.has(model)) {
        limitedOnce.add(model);
        return anthropic
          ? json(
              429,
              { type: 'error', error: { type: 'rate_limit_error', message: 'rate limited for now' } },
              { 'retry-after': once[1]! },
            )
          : json(
              429,
              {
                error: {
                  message: 'Rate limit reached for requests',
                  type: 'requests',
                  param: null,
                  code: 'rate_limit_exceeded',
                },
              },
              { 'retry-after': once[1]! },
            );
      }
      if (once) return answer(json, anthropic, once[2]!, body, cost);
      const scripted = scripts.get(model);
      if (scripted) {
        const key = `${path} ${model}`;
        const n = asked.get(key) ?? 0;
        asked.set(key, n + 1);
        return answer(json, anthropic, model, body, cost, scripted[Math.min(n, scripted.length - 1)]);
      }
      if (model === 'refusal') {
        return anthropic
          ? json(200, {
              id: 'msg_fake',
              type: 'message',
              role: 'assistant',
              model,
              content: [],
              stop_reason: 'refusal',
              stop_sequence: null,
              usage: { input_tokens: 40, output_tokens: 0 },
            })
          : json(200, {
              id: 'chatcmpl-fake',
              object: 'chat.completion',
              created: 1_700_000_000,
              model,
              choices: [
                {
                  index: 0,
                  message: { role: 'assistant', content: null, refusal: "I can't help with that." },
                  logprobs: null,
                  finish_reason: 'stop',
                },
              ],
              usage: { prompt_tokens: 40, completion_tokens: 6, total_tokens: 46 },
            });
      }
      const sequence = /^verdicts-([^#]*)/.exec(model);
      if (sequence) {
        const key = `${path} ${model}`;
        const n = asked.get(key) ?? 0;
        asked.set(key, n + 1);
        const list = sequence[1]!.split(',');
        return answer(json, anthropic, `verdict-${list[Math.min(n, list.length - 1)]!}`, body, cost);
      }
      if (model === 'rate-limited') {
        return anthropic
          ? json(
              429,
              {
                type: 'error',
                error: {
                  type: 'rate_limit_error',
                  message: 'Number of request tokens has exceeded your per-minute rate limit',
                },
              },
              { 'retry-after': String(RETRY_AFTER_S) },
            )
          : json(
              429,
              {
                error: {
                  message: 'Rate limit reached for requests',
                  type: 'requests',
                  param: null,
                  code: 'rate_limit_exceeded',
                },
              },
              { 'retry-after': String(RETRY_AFTER_S) },
            );
      }
      if (model === 'overloaded') {
        return anthropic
          ? json(529, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } })
          : json(503, { error: { message: 'The server is overloaded', type: 'server_error' } });
      }
      if (model === 'no-text') {
        return anthropic
          ? json(200, {
              id: 'msg_fake',
              type: 'message',
              role: 'assistant',
              model,
              content: [],
              stop_reason: 'end_turn',
              stop_sequence: null,
              usage: { input_tokens: 5, output_tokens: 0 },
            })
          : json(200, {
              id: 'chatcmpl-fake',
              object: 'chat.completion',
              created: 1_700_000_000,
              model,
              choices: [
                {
                  index: 0,
                  message: { role: 'assistant', content: null, refusal: null },
                  logprobs: null,
                  finish_reason: 'stop',
                },
              ],
              usage: { prompt_tokens: 5, completion_tokens: 0, total_tokens: 5 },
            });
      }
      const slow = /^slow-(\d+)$/.exec(model);
      if (slow) {
        const timer = setTimeout(() => answer(json, anthropic, model, body, cost), Number(slow[1]));
        res.on('close', () => {
          if (!res.writableEnded) closed += 1;
          clearTimeout(timer);
        });
        return;
      }
      if (model === 'garbage') {
        res.writeHead(200, { 'content-type': 'text/html' });
        return res.end('<html><body>502 upstream garbage</body></html>');
      }
      answer(json, anthropic, model, body, cost);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    closed: () => closed,
    script: (model, texts) => void scripts.set(model, texts),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

type Json = (status: number, value: unknown, headers?: Record<string, string>) => void;

/** The well-formed answers: a verdict for `verdict-<v>`, else prose (the scripted text, or the echoed one). */
function answer(
  json: Json,
  anthropic: boolean,
  model: string,
  body: Record<string, unknown>,
  cost: number | undefined,
  text?: string,
): void {
  const verdict = model.startsWith('verdict-')
    ? { verdict: model.slice('verdict-'.length), confidence: 0.9, reason: 'from the fake API' }
    : model.startsWith('findings-')
      ? {
          findings: [
            {
              state: model.slice('findings-'.length),
              severity: 'warning',
              message: 'from the fake API: this state could say more',
              fix: 'add a description: to it',
            },
          ],
        }
      : undefined;
  const prose = text ?? (model.startsWith('echo:') ? model : 'I think it went fine.');
  if (anthropic) {
    // A verdict is the forced tool's input when the request forces one; asked for plain text (a prompt state), its JSON as text.
    const tool = (body['tool_choice'] as { name?: string } | undefined)?.name;
    const content =
      verdict === undefined
        ? [{ type: 'text', text: prose }]
        : tool === undefined
          ? [{ type: 'text', text: JSON.stringify(verdict) }]
          : [{ type: 'tool_use', id: 'toolu_fake', name: tool, input: verdict }];
    return json(200, {
      id: 'msg_fake',
      type: 'message',
      role: 'assistant',
      model,
      content,
      stop_reason: verdict && tool !== undefined ? 'tool_use' : 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 120, output_tokens: 15, ...(cost === undefined ? {} : { cost_usd: cost }) },
    });
  }
  return json(200, {
    id: 'chatcmpl-fake',
    object: 'chat.completion',
    created: 1_700_000_000,
    model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: verdict ? JSON.stringify(verdict) : prose, refusal: null },
        logprobs: null,
        finish_reason: 'stop',
      },
    ],
    usage: { prompt_tokens: 130, completion_tokens: 17, total_tokens: 147, ...(cost === undefined ? {} : { cost }) },
  });
}
