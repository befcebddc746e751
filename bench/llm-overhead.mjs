// `npm run bench` part `llm`: what an LLM evaluation by an API provider adds beyond the model call
// (issue 13, goal 50 ms). The `evaluateLlm` activity (dist/) asks a fake server in this process
// that answers each wire format at once (Anthropic Messages, OpenAI Chat Completions), so the
// activity's wall time is the overhead: building the prompt, the SDK, the loopback HTTP round
// trip, reading the verdict. The first call (SDK modules loading) is reported apart.
import { createServer } from 'node:http';

const VERDICT = { verdict: 'yes', confidence: 0.9, reason: 'bench' };

export function fakeApi() {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const body =
        req.url === '/v1/messages'
          ? {
              id: 'msg_b',
              type: 'message',
              role: 'assistant',
              model: 'b',
              content: [{ type: 'tool_use', id: 't', name: 'record_verdict', input: VERDICT }],
              stop_reason: 'tool_use',
              stop_sequence: null,
              usage: { input_tokens: 1, output_tokens: 1 },
            }
          : {
              id: 'c',
              object: 'chat.completion',
              created: 0,
              model: 'b',
              choices: [
                {
                  index: 0,
                  message: { role: 'assistant', content: JSON.stringify(VERDICT), refusal: null },
                  finish_reason: 'stop',
                },
              ],
              usage: { prompt_tokens: 1, completion_tokens: 1 },
            };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p95 = (xs) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.95))];
const r2 = (x) => Math.round(x * 100) / 100;

/** Per provider: first call, median and p95 of `n` more calls (ms), and whether within the goal. */
export async function llmOverhead({ dist, n = 100, goalMs = 50 }) {
  const { makeEvaluateLlm } = await dist('activities/evaluate-llm.js');
  const server = await fakeApi();
  const url = `http://127.0.0.1:${server.address().port}`;
  const evaluate = makeEvaluateLlm({ env: { ANTHROPIC_API_KEY: 'bench', OPENAI_API_KEY: 'bench' } });
  const output = 'x'.repeat(4000);
  const out = { goal_ms: goalMs, calls: n, providers: {} };
  try {
    for (const [provider, base_url, api_key_env] of [
      ['anthropic', url, 'ANTHROPIC_API_KEY'],
      ['openai-compatible', `${url}/v1`, 'OPENAI_API_KEY'],
    ]) {
      const input = {
        instanceId: 'bench',
        state: 'judge',
        output,
        schema: { type: 'object', properties: { verdict: { type: 'string' } }, required: ['verdict'] },
        min_confidence: 0.5,
        uncertain_suffix: false,
        cwd: '/tmp',
        timeout_s: 30,
        llm: { provider, model: 'bench', base_url, api_key_env, key_required: true, max_tokens: 256 },
      };
      const times = [];
      let first;
      for (let i = 0; i <= n; i += 1) {
        const t0 = performance.now();
        const reply = await evaluate(input);
        const ms = performance.now() - t0;
        if (!('judgement' in reply)) throw new Error(`bench llm ${provider}: ${reply.error}`);
        if (i === 0) first = ms;
        else times.push(ms);
      }
      out.providers[provider] = {
        first_ms: r2(first),
        median_ms: r2(median(times)),
        p95_ms: r2(p95(times)),
        within_goal: median(times) <= goalMs,
      };
    }
  } finally {
    server.close();
  }
  return out;
}
