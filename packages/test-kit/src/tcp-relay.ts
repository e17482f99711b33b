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
  /**
   * Cuts every open connection and refuses new ones until `restore`: accepted and
   * closed at once, or with `{ refuse: true }` not accepted at all (the port
   * stops listening: ECONNREFUSED, as from a Redis that died).
   */
  cut(options?: { refuse?: boolean }): void;
  /**
   * Drops what the target answers until `unmute`, while what clients send still
   * reaches it: with `cut` after it, a command that ran whose answer was lost with
   * its connection.
   */
  mute(): void;
  /**
   * Mutes (as `mute`) once a client sends bytes containing `text`, from the answer
   * to them on: a command found by what it names (a seat's key) runs, and
   * nothing that connection or any other is answered after it.
   */
  muteOnceSent(text: string): void;
  unmute(): void;
  /** Lets new connections in again (listening again after `cut({ refuse: true })`). */
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startRelay(target: string): Promise<Relay> {
  let { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  let down = false;
  let muted = false;
  let muteWhenSent: string | null = null;
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
    client.on('data', (chunk: Buffer) => {
      if (muteWhenSent !== null && chunk.includes(muteWhenSent)) {
        muted = true;
        muteWhenSent = null;
      }
    });
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
    cut(options) {
      down = true;
      if (options?.refuse && server.listening) server.close();
      for (const socket of sockets) socket.destroy();
    },
    async restore() {
      down = false;
      if (server.listening) return;
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(relayPort, '127.0.0.1', () => {
          server.off('error', reject);
          resolve();
        });
      });
    },
    mute() {
      muted = true;
    },
    muteOnceSent(text) {
      muteWhenSent = text;
    },
    unmute() {
      muted = false;
      muteWhenSent = null;
    },
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        if (server.listening) server.close(() => resolve());
        else resolve();
      }),
  };
}
