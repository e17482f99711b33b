/** One Server-Sent Events message: its `event` name (default `message`), `data` lines joined by `\n`, and `id` when sent. */
export interface SseMessage {
  event: string;
  data: string;
  id?: string;
}

/**
 * Reads a `text/event-stream` body as the HTML standard's parser does: lines end
 * with LF, CR or CRLF; `:` lines are comments; a blank line dispatches the
 * message gathered so far (none when it has no data); `retry` sets the
 * reconnection time. Bytes are decoded as UTF-8 across chunk boundaries.
 */
export async function* readSse(
  body: ReadableStream<Uint8Array>,
  onRetry: (ms: number) => void = () => {},
): AsyncGenerator<SseMessage> {
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let buffer = '';
  let event = '';
  let data: string[] = [];
  let id: string | undefined;
  let seenCr = false;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      // A CR at the very end of a chunk may be the first half of a CRLF.
      if (seenCr && buffer.startsWith('\n')) buffer = buffer.slice(1);
      seenCr = false;
      let start = 0;
      for (let i = 0; i < buffer.length; i++) {
        const c = buffer.charCodeAt(i);
        if (c !== 10 && c !== 13) continue;
        const line = buffer.slice(start, i);
        if (c === 13) {
          if (i + 1 < buffer.length) {
            if (buffer.charCodeAt(i + 1) === 10) i++;
          } else {
            seenCr = true;
          }
        }
        start = i + 1;
        if (line === '') {
          if (data.length) yield { event: event || 'message', data: data.join('\n'), ...(id !== undefined ? { id } : {}) };
          event = '';
          data = [];
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        let text = colon === -1 ? '' : line.slice(colon + 1);
        if (text.startsWith(' ')) text = text.slice(1);
        if (field === 'event') event = text;
        else if (field === 'data') data.push(text);
        else if (field === 'id' && !text.includes('\u0000')) id = text;
        else if (field === 'retry' && /^\d+$/.test(text)) onRetry(Number(text));
      }
      buffer = buffer.slice(start);
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
