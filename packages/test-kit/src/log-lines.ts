import { Writable } from 'node:stream';

/** A logger's destination for a test: keeps every non-empty line written to it. */
export function logLines(): { sink: Writable; lines: string[] } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      cb();
    },
  });
  return { sink, lines };
}
