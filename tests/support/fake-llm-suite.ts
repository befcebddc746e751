/**
 * The fake LLM API for one test file: started before its tests and closed after them. The object
 * returned reads through to the running server, so tests use it as they would the server itself.
 */
import { afterAll, beforeAll } from 'vitest';
import { startFakeLlmApi, type FakeLlmApi } from './fake-llm-api.js';

export function useFakeLlmApi(): FakeLlmApi {
  let started: FakeLlmApi | undefined;
  beforeAll(async () => {
    started = await startFakeLlmApi();
  });
  afterAll(async () => {
    await started?.close();
  });
  const running = (): FakeLlmApi => {
    if (!started) throw new Error('the fake LLM API runs only while the tests of its file run');
    return started;
  };
  return {
    get url() {
      return running().url;
    },
    get requests() {
      return running().requests;
    },
    closed: () => running().closed(),
    script: (model, texts) => running().script(model, texts),
    close: () => running().close(),
  };
}
