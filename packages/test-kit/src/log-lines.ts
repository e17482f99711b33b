import { Writable } from 'node:stream';

/** A sink for log output (e.g. `startApi(env, { logTo: sink })`) that keeps each line it is sent. */
export function logLines(): { lines: string[]; sink: Writable } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  return { lines, sink };
}
