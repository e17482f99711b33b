// How an API runtime listens, drains and announces itself: the same in the
// one-process server and in each forked API process (API_PROCESSES > 1).
import type { Server } from 'node:http';
import type { Config } from '@holdfast/config';
import type { createApiRuntime } from '@holdfast/api';

type ApiRuntime = Awaited<ReturnType<typeof createApiRuntime>>;

/** Listens on the configured port; in demo mode without an explicit DEMO_MODE=true, on loopback only (Config.listenHost). */
export async function listenApi(rt: ApiRuntime, config: Config): Promise<{ server: Server; port: number }> {
  const server: Server = await new Promise((resolve, reject) => {
    const s = config.listenHost === undefined
      ? rt.app.listen(config.port, () => resolve(s))
      : rt.app.listen(config.port, config.listenHost, () => resolve(s));
    s.once('error', reject);
  });
  const address = server.address();
  return { server, port: typeof address === 'object' && address ? address.port : config.port };
}

/** Stops taking connections, lets requests in flight finish (what is left is closed after 5 s), then closes the runtime. */
export async function drainApi(server: Server, rt: ApiRuntime): Promise<void> {
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
