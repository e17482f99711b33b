/**
 * The system under test: `npm start`'s entry point from the repository root on
 * a port the system gives it, with its own database and Redis index, in demo mode. With
 * E2E_BASE_URL set, the tests use that running server instead.
 */
import { ServerProcess, waitFor } from '@holdfast/test-kit';

export interface RunningServer {
  baseUrl: string;
  stop(): Promise<void>;
}

/** The database and Redis index the browser tests' servers use (theirs alone: the run removes what it made there). */
export const E2E_DATABASE_URL = process.env.E2E_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/holdfast_e2e';
export const E2E_REDIS_URL = process.env.E2E_REDIS_URL ?? 'redis://127.0.0.1:6379/14';

export async function startServer(): Promise<RunningServer> {
  if (process.env.E2E_BASE_URL) return { baseUrl: process.env.E2E_BASE_URL.replace(/\/$/, ''), stop: async () => {} };
  // Port 0: the server takes a port the system gives it and prints it (demo mode's checkout-page
  // line); a port picked here and released could be taken by another process before the server binds it.
  const server = ServerProcess.start({
    PORT: '0',
    NODE_ENV: 'development',
    DEMO_MODE: 'true',
    DATABASE_URL: E2E_DATABASE_URL,
    REDIS_URL: E2E_REDIS_URL,
    HOLD_RATE_LIMIT_PER_MINUTE: '1000',
    LOG_LEVEL: 'warn',
  }, { detached: true });
  const stop = async () => {
    await server.stop(10_000);
  };
  let baseUrl = '';
  try {
    const ready = await waitFor('npm start to be ready or exit', async () => {
      if (server.child.exitCode !== null) return 'exited';
      const port = /checkout page at http:\/\/[^/:]+:(\d+)\//.exec(server.stdout)?.[1];
      if (!port) return false;
      baseUrl = `http://127.0.0.1:${port}`;
      return (await fetch(`${baseUrl}/readyz`)).ok && 'ready';
    }, { timeoutMs: 90_000, intervalMs: 300 });
    if (ready === 'exited') throw new Error(`npm start exited with ${server.child.exitCode}:\n${server.output.slice(-20_000)}`);
  } catch (error) {
    await stop();
    throw error instanceof Error && error.message.startsWith('npm start exited') ? error
      : new Error(`npm start was not ready within 90 s:\n${server.output.slice(-20_000)}`);
  }
  return { baseUrl, stop };
}
