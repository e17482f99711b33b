import net from 'node:net';

/**
 * A TCP proxy in front of the shared PostgreSQL that a test can freeze: while
 * frozen it forwards nothing either way and accepts new connections without
 * answering them, as a PostgreSQL stopped with SIGSTOP or behind a network
 * black hole looks to its clients (the TCP connections stay up, no byte
 * comes back). The shared server itself is never touched.
 */
export class PgProxy {
  private frozen = false;
  private readonly pairs = new Set<{ client: net.Socket; upstream: net.Socket }>();
  private readonly slowReplies: { marker: Buffer; ms: number; times: number }[] = [];

  private constructor(private readonly server: net.Server, readonly port: number, private readonly target: { host: string; port: number }) {}

  static async start(databaseUrl: string): Promise<PgProxy> {
    const u = new URL(databaseUrl);
    const target = { host: u.hostname, port: Number(u.port || 5432) };
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const proxy = new PgProxy(server, (server.address() as net.AddressInfo).port, target);
    server.on('connection', (client) => proxy.accept(client));
    return proxy;
  }

  /** The same database URL, through the proxy. */
  urlFor(databaseUrl: string): string {
    const u = new URL(databaseUrl);
    u.hostname = '127.0.0.1';
    u.port = String(this.port);
    return u.toString();
  }

  private accept(client: net.Socket): void {
    const upstream = net.connect(this.target.port, this.target.host);
    const pair = { client, upstream };
    this.pairs.add(pair);
    client.on('data', (d: Buffer) => {
      upstream.write(d);
      const rule = this.slowReplies.find((r) => r.times > 0 && d.includes(r.marker));
      if (rule) {
        // The statement goes to PostgreSQL at once and runs (and commits); its answer waits.
        rule.times--;
        upstream.pause();
        setTimeout(() => {
          if (!this.frozen) upstream.resume();
        }, rule.ms);
      }
    });
    upstream.on('data', (d) => client.write(d));
    const close = () => {
      client.destroy();
      upstream.destroy();
      this.pairs.delete(pair);
    };
    client.on('close', close);
    upstream.on('close', close);
    client.on('error', close);
    upstream.on('error', close);
    if (this.frozen) {
      client.pause();
      upstream.pause();
    }
  }

  /** Stops forwarding: every byte either way waits (in the kernel's buffers) until thaw. */
  freeze(): void {
    this.frozen = true;
    for (const { client, upstream } of this.pairs) {
      client.pause();
      upstream.pause();
    }
  }

  /**
   * The next `times` statements whose bytes contain `marker` reach PostgreSQL at once, but
   * their connection's answers are held back `ms` (a server slow to answer, a flush that
   * takes long): the client waits for an answer the server has already given.
   */
  delayRepliesTo(marker: string, ms: number, times = 1): void {
    this.slowReplies.push({ marker: Buffer.from(marker), ms, times });
  }

  /** Forwards again, what waited first. */
  thaw(): void {
    this.frozen = false;
    for (const { client, upstream } of this.pairs) {
      client.resume();
      upstream.resume();
    }
  }

  /** Connections open through the proxy. */
  get connections(): number {
    return this.pairs.size;
  }

  async close(): Promise<void> {
    for (const { client, upstream } of this.pairs) {
      client.destroy();
      upstream.destroy();
    }
    this.pairs.clear();
    await new Promise((r) => this.server.close(r));
  }
}
