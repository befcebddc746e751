/** JSON found in what a program printed: host CLIs and agents wrap it in prose or fences. */

/** Parses JSON from text: the whole text, else a ```json fence, else the last line, else the outermost {...}. */
export function parseJsonText(text: string): unknown {
  const candidates: string[] = [text.trim()];
  const fence = /```(?:json)?\s*\n?([\s\S]*?)```/i.exec(text);
  if (fence?.[1] !== undefined) candidates.push(fence[1].trim());
  const lines = text.trim().split('\n');
  const last = lines[lines.length - 1];
  if (lines.length > 1 && last !== undefined) candidates.push(last.trim());
  const open = text.indexOf('{');
  const close = text.lastIndexOf('}');
  if (open >= 0 && close > open) candidates.push(text.slice(open, close + 1));
  for (const c of candidates) {
    if (c === '') continue;
    try {
      return JSON.parse(c) as unknown;
    } catch {
      // try the next candidate
    }
  }
  throw new Error('host CLI output is not JSON');
}
