/**
 * A TCP relay between a client (a browser, the typed client) and the API, so a
 * test can cut the client's connections (as a flaky network would) and later
 * let it back in; or between the API and Redis, standing for an endpoint a
 * failover moves (`retarget`: new connections go to the new node, open ones stay).
 */
import { createConnection, createServer, type Socket } from 'node:net';

export interface Relay {
  url: string;
  port: number;
  /** Sends new connections to `target` from now on; open ones stay where they are. */
  retarget(target: string): void;
  /** Cuts every open connection and refuses new ones until `restore`. */
  cut(): void;
  /**
   * Drops what the target answers until `unmute`, while what clients send still
   * reaches it: with `cut` after it, a command that ran whose answer was lost with
   * its connection.
   */
  mute(): void;
  unmute(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startRelay(target: string): Promise<Relay> {
  let { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  let down = false;
  let muted = false;
  const server = createServer((client) => {
    if (down) {
      client.destroy();
      return;
    }
    const upstream = createConnection({ host: hostname, port: Number(port) });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    client.pipe(upstream);
    upstream.on('data', (chunk: Buffer) => {
      if (!muted) client.write(chunk);
    });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const relayPort = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${relayPort}`,
    port: relayPort,
    retarget(next) {
      ({ hostname, port } = new URL(next));
    },
    cut() {
      down = true;
      for (const socket of sockets) socket.destroy();
    },
    restore() {
      down = false;
    },
    mute() {
      muted = true;
    },
    unmute() {
      muted = false;
    },
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
