import pg from 'pg';

/**
 * The text of every statement the pg driver sends while `fn` runs, in this
 * process (a pass-through spy: the statements still run). `fn` is given the
 * list as it fills, for waiting on a statement sent in the background.
 */
export async function statementsDuring<T>(fn: (seen: readonly string[]) => Promise<T>): Promise<{ result: T; statements: string[] }> {
  const statements: string[] = [];
  const original = pg.Client.prototype.query;
  const spy = jest.spyOn(pg.Client.prototype, 'query').mockImplementation(function (this: pg.Client, ...args: unknown[]) {
    const q = args[0];
    statements.push(typeof q === 'string' ? q : String((q as { text?: string })?.text ?? ''));
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof original);
  try {
    return { result: await fn(statements), statements };
  } finally {
    spy.mockRestore();
  }
}
