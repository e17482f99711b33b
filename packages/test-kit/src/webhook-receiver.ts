import { createServer, type IncomingMessage, type ServerResponse, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One request a webhook receiver got. */
export interface ReceivedWebhook {
  path: string;
  headers: IncomingMessage['headers'];
  /** The exact body bytes, as text. */
  body: string;
  /** When it arrived (Date.now()). */
  at: number;
}

/** What the receiver answers a request with: a status, or 'hang' (never answer). */
export type ReceiverAnswer = number | 'hang' | { status: number; headers?: Record<string, string> };

/**
 * A real HTTP receiver of webhooks on loopback (port 0): records every request and answers
 * each as `answer` decides (by default 200). `close` ends hanging requests too.
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  answer: (req: ReceivedWebhook, index: number) => ReceiverAnswer = () => 200;
  private readonly sockets = new Set<Socket>();

  private constructor(private readonly server: Server, readonly url: string) {}

  static async start(): Promise<WebhookReceiver> {
    const ref: { self?: WebhookReceiver } = {};
    const server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const got: ReceivedWebhook = { path: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
        const index = ref.self!.received.push(got) - 1;
        const a = ref.self!.answer(got, index);
        if (a === 'hang') return;
        const { status, headers } = typeof a === 'number' ? { status: a, headers: {} } : a;
        res.writeHead(status, { 'content-type': 'text/plain', ...headers });
        res.end('ok');
      });
    });
    server.on('connection', (s: Socket) => {
      ref.self?.sockets.add(s);
      s.on('close', () => ref.self?.sockets.delete(s));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    ref.self = new WebhookReceiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return ref.self;
  }

  /** The requests whose body is the event `eventId`'s. */
  of(eventId: string): ReceivedWebhook[] {
    return this.received.filter((r) => (JSON.parse(r.body) as { id: string }).id === eventId);
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise((r) => this.server.close(r));
  }
}
