import net from 'node:net';

/** One HTTP/1.1 request as the load generator sends it. */
export interface ConnectionRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface ConnectionResponse {
  status: number;
  body: Buffer;
}

const CRLF_CRLF = Buffer.from('\r\n\r\n');

/**
 * One keep-alive HTTP/1.1 connection to a loopback server, one request at a
 * time, for the load generator's loops. Node's `http` client costs the load
 * generator about as much CPU per request as the server under test spends
 * (an agent, a request and a response object, header objects, streams), and
 * on a 2-core machine the load generator shares the cores with the server,
 * Redis and PostgreSQL: every microsecond it spends is taken from them. This
 * writes each request as one string in one write and reads the answer's
 * status line, `Content-Length` or chunked body, nothing else
 * (`git show aba00ee:docs/benchmarks.md`, issue 12, seventh pass). It reconnects after a
 * `Connection: close` answer or a broken connection; a request that fails
 * rejects and is not sent again.
 */
export class HttpConnection {
  private socket: net.Socket | null = null;
  private connecting: Promise<net.Socket> | null = null;
  private pending: {
    resolve(response: ConnectionResponse): void;
    reject(error: Error): void;
    timer: NodeJS.Timeout;
  } | null = null;
  /** What has arrived and is not yet read, in pieces: joined only when an answer can be complete. */
  private received: Buffer[] = [];
  private receivedBytes = 0;
  /** Bytes that must have arrived before parsing again is worth it (0: unknown). */
  private neededBytes = 0;
  private closed = false;
  /** How long the connection may sit idle and still be sent a request (from the server's Keep-Alive hint; null: no hint). */
  private reuseWithinMs: number | null = null;
  private idleSince = 0;
  private readonly hostHeader: string;

  constructor(
    private readonly host: string,
    private readonly port: number,
    private readonly timeoutMs = 30_000,
  ) {
    this.hostHeader = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  }

  async send(request: ConnectionRequest): Promise<ConnectionResponse> {
    if (this.pending) throw new Error('HttpConnection sends one request at a time');
    if (this.closed) throw new Error('HttpConnection is closed');
    // Past the server's keep-alive time the server may close the connection as the request goes out
    // (ECONNRESET, a request lost that the server never saw): a connection idle that long is opened anew.
    if (this.socket && this.reuseWithinMs !== null && Date.now() - this.idleSince > this.reuseWithinMs) this.drop();
    const socket = this.socket ?? (await this.connect());
    let head = `${request.method} ${request.path} HTTP/1.1\r\nhost: ${this.hostHeader}\r\n`;
    let hasType = false;
    for (const [name, value] of Object.entries(request.headers ?? {})) {
      if (name.toLowerCase() === 'content-type') hasType = true;
      head += `${name}: ${value}\r\n`;
    }
    if (request.body !== undefined) {
      if (!hasType) head += 'content-type: application/json\r\n';
      head += `content-length: ${Buffer.byteLength(request.body)}\r\n`;
    }
    const text = `${head}\r\n${request.body ?? ''}`;
    return new Promise<ConnectionResponse>((resolve, reject) => {
      const timer = setTimeout(() => this.fail(new Error(`request timed out after ${this.timeoutMs} ms`)), this.timeoutMs);
      this.pending = { resolve, reject, timer };
      socket.write(text);
    });
  }

  close(): void {
    this.closed = true;
    this.fail(new Error('connection closed by the client'));
  }

  private connect(): Promise<net.Socket> {
    this.connecting ??= new Promise<net.Socket>((resolve, reject) => {
      const socket = net.connect({ host: this.host, port: this.port, noDelay: true });
      const refused = (error: Error) => {
        this.connecting = null;
        reject(error);
      };
      socket.once('error', refused);
      socket.once('connect', () => {
        socket.off('error', refused);
        socket.on('error', (error) => this.fail(error, socket));
        socket.on('close', () => this.fail(new Error('the server closed the connection'), socket));
        socket.on('data', (chunk: Buffer) => this.onData(chunk));
        this.socket = socket;
        this.connecting = null;
        resolve(socket);
      });
    });
    return this.connecting;
  }

  /**
   * Keeps the piece and parses only once the answer can be complete: joining
   * every piece to all before it, and parsing again, on each arrival copied a
   * 15 MB seat map about 250 times (the growth section's 100,000-seat map read
   * 1.2 s instead of 0.2 s, `git show 76d546f:docs/benchmarks.md`, issue 12, eighth pass).
   */
  private onData(chunk: Buffer): void {
    this.received.push(chunk);
    this.receivedBytes += chunk.length;
    if (!this.pending || this.receivedBytes < this.neededBytes) return;
    const data = this.received.length === 1 ? this.received[0]! : Buffer.concat(this.received, this.receivedBytes);
    this.received = [data];
    let parsed: ReadResponse;
    try {
      parsed = readResponse(data);
    } catch (error) {
      this.fail(error as Error);
      return;
    }
    if ('need' in parsed) {
      this.neededBytes = parsed.need;
      return;
    }
    const rest = data.subarray(parsed.used);
    this.received = rest.length ? [rest] : [];
    this.receivedBytes = rest.length;
    this.neededBytes = 0;
    const { resolve, timer } = this.pending;
    clearTimeout(timer);
    this.pending = null;
    if (parsed.close) this.drop();
    else {
      this.idleSince = Date.now();
      if (this.reuseWithinMs === null && parsed.keepAliveSeconds !== null) this.reuseWithinMs = reuseWithinMs(parsed.keepAliveSeconds);
    }
    resolve(parsed.response);
  }

  /** Rejects the request in flight (if any) and drops the connection; the next request opens a new one. */
  private fail(error: Error, socket: net.Socket | null = this.socket): void {
    if (socket !== this.socket) return;
    this.drop();
    const pending = this.pending;
    this.pending = null;
    if (pending) {
      clearTimeout(pending.timer);
      pending.reject(error);
    }
  }

  private drop(): void {
    const socket = this.socket;
    this.socket = null;
    this.reuseWithinMs = null;
    this.received = [];
    this.receivedBytes = 0;
    this.neededBytes = 0;
    socket?.destroy();
  }
}

/**
 * How long after an answer a connection is still sent a request, from the
 * server's `Keep-Alive: timeout=N` (Node's http server sends its
 * keepAliveTimeout, 5 s by default): a second less, as undici does, but at
 * least half of it.
 */
export function reuseWithinMs(keepAliveSeconds: number): number {
  const ms = keepAliveSeconds * 1000;
  return Math.max(ms - 1000, ms / 2);
}

type CompleteResponse = { response: ConnectionResponse; used: number; close: boolean; keepAliveSeconds: number | null };
/** A complete answer, or how many bytes (from the start) must be there before it can be. */
type ReadResponse = CompleteResponse | { need: number };

/**
 * The first complete HTTP/1.1 response at the start of `data`, with the bytes
 * it took, or null while it is not all there. Throws on a response it cannot read.
 */
export function parseResponse(data: Buffer): CompleteResponse | null {
  const read = readResponse(data);
  return 'need' in read ? null : read;
}

/**
 * How many bytes, counted from the start of `data`, must be there before the
 * answer that starts it can be complete: the whole body where its length is
 * known (`Content-Length`), the end of the chunk being read (chunked), else
 * one more byte than there is. For an answer `parseResponse` found incomplete.
 */
export function responseBytesNeeded(data: Buffer): number {
  const read = readResponse(data);
  return 'need' in read ? read.need : read.used;
}

function readResponse(data: Buffer): ReadResponse {
  const more = { need: data.length + 1 };
  const end = data.indexOf(CRLF_CRLF);
  if (end === -1) return more;
  const lines = data.toString('latin1', 0, end).split('\r\n');
  const statusLine = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '');
  if (!statusLine) throw new Error(`not an HTTP/1.1 status line: ${JSON.stringify((lines[0] ?? '').slice(0, 80))}`);
  const status = Number(statusLine[1]);
  let length: number | null = null;
  let chunked = false;
  let close = lines[0]!.startsWith('HTTP/1.0');
  let keepAliveSeconds: number | null = null;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    const colon = line.indexOf(':');
    if (colon === -1) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (name === 'content-length') length = Number(value);
    else if (name === 'transfer-encoding') chunked = value.toLowerCase().split(',').map((v) => v.trim()).includes('chunked');
    else if (name === 'connection') close = value.toLowerCase() === 'close';
    else if (name === 'keep-alive') {
      const timeout = /(?:^|[\s,])timeout=(\d+)/i.exec(value);
      if (timeout) keepAliveSeconds = Number(timeout[1]);
    }
  }
  const start = end + 4;
  if (status === 204 || status === 304 || (status >= 100 && status < 200)) {
    return { response: { status, body: Buffer.alloc(0) }, used: start, close, keepAliveSeconds };
  }
  if (chunked) {
    const parts: Buffer[] = [];
    let at = start;
    for (;;) {
      const lineEnd = data.indexOf('\r\n', at);
      if (lineEnd === -1) return more;
      const size = parseInt(data.toString('latin1', at, lineEnd).split(';')[0]!.trim(), 16);
      if (!Number.isFinite(size) || size < 0) throw new Error('a chunk size that is not a number');
      if (size === 0) {
        // Trailers, if any, end with an empty line.
        const trailerEnd = data.indexOf(CRLF_CRLF, lineEnd);
        const bare = data.subarray(lineEnd, lineEnd + 4).equals(CRLF_CRLF);
        if (!bare && trailerEnd === -1) return more;
        const used = bare ? lineEnd + 4 : trailerEnd + 4;
        return { response: { status, body: Buffer.concat(parts) }, used, close, keepAliveSeconds };
      }
      const next = lineEnd + 2 + size + 2;
      if (data.length < next) return { need: next };
      parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
      at = next;
    }
  }
  if (length === null) throw new Error(`an answer (${status}) with neither Content-Length nor chunked encoding`);
  if (!Number.isSafeInteger(length) || length < 0) throw new Error('a Content-Length that is not a number');
  if (data.length < start + length) return { need: start + length };
  return { response: { status, body: data.subarray(start, start + length) }, used: start + length, close, keepAliveSeconds };
}

/** A fixed set of keep-alive connections; requests wait for a free one. */
export class ConnectionPool {
  private readonly free: HttpConnection[];
  private readonly waiting: Array<(c: HttpConnection) => void> = [];

  constructor(baseUrl: string, size: number) {
    const url = new URL(baseUrl);
    this.free = Array.from({ length: size }, () => new HttpConnection(url.hostname, Number(url.port), 30_000));
  }

  async send(request: ConnectionRequest): Promise<ConnectionResponse> {
    const connection = this.free.pop() ?? (await new Promise<HttpConnection>((resolve) => this.waiting.push(resolve)));
    try {
      return await connection.send(request);
    } finally {
      const next = this.waiting.shift();
      if (next) next(connection);
      else this.free.push(connection);
    }
  }

  close(): void {
    for (const c of this.free) c.close();
  }
}
