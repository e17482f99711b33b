// How an API runtime listens, drains and announces itself: the same in the
// one-process server and in each forked API process (API_PROCESSES > 1).
import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Config } from '@holdfast/config';
import type { createApiRuntime } from '@holdfast/api';

type ApiRuntime = Awaited<ReturnType<typeof createApiRuntime>>;

/** Each listening server's open connections, for the drain (drainApi). */
const connections = new WeakMap<Server, Set<Socket>>();

/** Listens on the configured port; in demo mode without an explicit DEMO_MODE=true, on loopback only (Config.listenHost). */
export async function listenApi(rt: ApiRuntime, config: Config): Promise<{ server: Server; port: number }> {
  const server: Server = await new Promise((resolve, reject) => {
    const s = config.listenHost === undefined
      ? rt.app.listen(config.port, () => resolve(s))
      : rt.app.listen(config.port, config.listenHost, () => resolve(s));
    s.once('error', reject);
  });
  const open = new Set<Socket>();
  connections.set(server, open);
  server.on('connection', (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  const address = server.address();
  return { server, port: typeof address === 'object' && address ? address.port : config.port };
}

/**
 * Stops taking connections, lets requests in flight finish (what is left is closed after 5 s), then
 * closes the runtime. Every answer from now on, those in flight included, says `Connection: close`
 * and closes its connection: a keep-alive client (a proxy, a load balancer) would otherwise go on
 * sending requests on it, served until the 5 s cut resets the one in flight.
 */
export async function drainApi(server: Server, rt: ApiRuntime): Promise<void> {
  const closing = (res: ServerResponse) => {
    if (!res.headersSent) res.setHeader('Connection', 'close');
  };
  server.prependListener('request', (_req, res: ServerResponse) => closing(res));
  // The answer each connection is writing now (Node keeps it as the socket's _httpMessage).
  for (const socket of connections.get(server) ?? []) {
    const res = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage;
    if (res) closing(res);
  }
  const closed = new Promise((r) => server.close(r));
  server.closeIdleConnections();
  const grace = setTimeout(() => server.closeAllConnections(), 5000);
  await closed;
  clearTimeout(grace);
  await rt.close();
}

/** Says on standard output that demo mode listens on loopback only, when it does. */
export function announceListenHost(config: Config): void {
  if (config.listenHost !== undefined) {
    process.stdout.write(`holdfast: demo mode listens on ${config.listenHost} only (it hands out admin tokens); set DEMO_MODE=true to listen on every interface\n`);
  }
}

/** In demo mode: the checkout page's address, for the person who ran `npm start`. */
export function announceCheckoutPage(config: Config, port: number): void {
  if (config.demoMode) process.stdout.write(`holdfast is running: checkout page at http://${config.listenHost ?? 'localhost'}:${port}/ (admin at /admin)\n`);
}
