import type { ServerResponse } from 'node:http';
import type { Request, RequestHandler, Response } from 'express';

/**
 * A middleware that only sets fixed headers (helmet with these options: no
 * nonces, nothing per request), run once at start-up against a stand-in
 * response; each request then gets the recorded headers in one loop instead of
 * helmet's dozen sub-middlewares. Throws at start-up if the middleware did
 * anything else than set or remove headers and call next() at once. The
 * result sets them on any response (the Express steps and the lean path alike).
 */
export type StaticHeaders = ((res: ServerResponse) => void) & {
  /**
   * The same headers as a flat list (name, value, name, value...) in the order
   * they are set, for `res.writeHead(status, list)` on a response that has no
   * header to remove (the lean path's).
   */
  readonly list: readonly string[];
};

export function staticHeaders(middleware: RequestHandler): StaticHeaders {
  const set: [string, string | string[]][] = [];
  const removed: string[] = [];
  let nexted = false;
  const stand = {
    setHeader(name: string, value: string | number | readonly string[]) {
      set.push([name, Array.isArray(value) ? [...value] : String(value)]);
      return stand;
    },
    removeHeader(name: string) {
      removed.push(name);
    },
  };
  void middleware({ headers: {}, method: 'GET', url: '/' } as Request, stand as unknown as Response, (err?: unknown) => {
    if (err) throw err instanceof Error ? err : new Error(String(err));
    nexted = true;
  });
  if (!nexted) throw new Error('staticHeaders: the middleware did not call next() at once');
  const list: string[] = [];
  for (const [name, value] of set) for (const v of Array.isArray(value) ? value : [value]) list.push(name, v);
  const apply = (res: ServerResponse) => {
    // Only a header that is there is removed: removing one that is not still
    // deletes a property of the response's header table (slow; it was the
    // largest Node.js item of a hold's profile, the lean path never has one).
    for (const name of removed) if (res.hasHeader(name)) res.removeHeader(name);
    for (const [name, value] of set) res.setHeader(name, value);
  };
  return Object.assign(apply, { list: Object.freeze(list) });
}
