// The load generator's own HTTP/1.1 connection, against real servers on
// loopback: Node's http server (what holdfast and Express answer with), and a
// raw TCP server for answers split byte by byte, closed or never finished.
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';

import { HttpConnection, parseResponse, responseBytesNeeded, reuseWithinMs } from '../src/http-connection.client';

const servers: Array<http.Server | net.Server> = [];

afterEach(async () => {
  for (const server of servers.splice(0)) {
    if ('closeAllConnections' in server) server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

function listen<T extends http.Server | net.Server>(server: T): Promise<number> {
  servers.push(server);
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

test('when a JSON request goes to Node\'s http server, then the server reads its method, path, headers and body, and the answer comes back whole on one connection', async () => {
  const seen: Array<{ method?: string; url?: string; auth?: string; type?: string; body: string; socket: unknown }> = [];
  const port = await listen(http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({ method: req.method, url: req.url, auth: req.headers.authorization, type: req.headers['content-type'], body, socket: req.socket });
      res.statusCode = req.method === 'POST' ? 201 : 200;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ echo: body, n: seen.length, text: 'héllo' }));
    });
  }));
  const connection = new HttpConnection('127.0.0.1', port);
  try {
    const posted = await connection.send({ method: 'POST', path: '/v1/things?x=1', headers: { authorization: 'Bearer t' }, body: '{"a":"é"}' });
    expect(posted.status).toBe(201);
    expect(JSON.parse(posted.body.toString())).toEqual({ echo: '{"a":"é"}', n: 1, text: 'héllo' });
    const got = await connection.send({ method: 'GET', path: '/v1/things/1' });
    expect(got.status).toBe(200);
    expect(JSON.parse(got.body.toString()).n).toBe(2);
    expect(seen.map(({ socket: _s, ...rest }) => rest)).toEqual([
      { method: 'POST', url: '/v1/things?x=1', auth: 'Bearer t', type: 'application/json', body: '{"a":"é"}' },
      { method: 'GET', url: '/v1/things/1', auth: undefined, type: undefined, body: '' },
    ]);
    expect(seen[0]!.socket).toBe(seen[1]!.socket);
  } finally {
    connection.close();
  }
});

test('when the answer is chunked, large, or has no body (204), then each is read whole and the next request still works', async () => {
  const big = 'x'.repeat(300_000);
  const port = await listen(http.createServer((req, res) => {
    if (req.url === '/chunked') {
      res.write('{"part":1,');
      setTimeout(() => res.end('"part2":2}'), 5);
    } else if (req.url === '/big') {
      res.setHeader('content-length', big.length);
      res.end(big);
    } else {
      res.statusCode = 204;
      res.end();
    }
  }));
  const connection = new HttpConnection('127.0.0.1', port);
  try {
    expect((await connection.send({ method: 'GET', path: '/chunked' })).body.toString()).toBe('{"part":1,"part2":2}');
    expect((await connection.send({ method: 'GET', path: '/big' })).body.toString()).toBe(big);
    expect(await connection.send({ method: 'DELETE', path: '/none' })).toEqual({ status: 204, body: Buffer.alloc(0) });
    expect((await connection.send({ method: 'GET', path: '/big' })).body.length).toBe(big.length);
  } finally {
    connection.close();
  }
});

test('when the answer arrives a byte at a time, then it is read whole', async () => {
  const answer = 'HTTP/1.1 409 Conflict\r\nContent-Type: application/json\r\nContent-Length: 29\r\n\r\n{"error":{"code":"SOLD_OUT"}}';
  const port = await listen(net.createServer((socket) => {
    socket.once('data', async () => {
      for (const byte of Buffer.from(answer)) {
        socket.write(Buffer.from([byte]));
        await new Promise((resolve) => setImmediate(resolve));
      }
    });
  }));
  const connection = new HttpConnection('127.0.0.1', port);
  try {
    const res = await connection.send({ method: 'POST', path: '/', body: '{}' });
    expect({ status: res.status, body: res.body.toString() }).toEqual({ status: 409, body: '{"error":{"code":"SOLD_OUT"}}' });
  } finally {
    connection.close();
  }
});

test('when the server answers Connection: close, or closes between requests, then the next request opens a new connection', async () => {
  let connections = 0;
  const port = await listen(http.createServer((req, res) => {
    if (req.url === '/close') res.setHeader('connection', 'close');
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ url: req.url }));
  }).on('connection', () => connections++));
  const connection = new HttpConnection('127.0.0.1', port);
  try {
    expect((await connection.send({ method: 'GET', path: '/close' })).status).toBe(200);
    expect((await connection.send({ method: 'GET', path: '/a' })).body.toString()).toBe('{"url":"/a"}');
    expect(connections).toBe(2);
    (servers[0] as http.Server).closeIdleConnections();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await connection.send({ method: 'GET', path: '/b' })).body.toString()).toBe('{"url":"/b"}');
    expect(connections).toBe(3);
  } finally {
    connection.close();
  }
});

test('when a connection sat idle longer than the server\'s keep-alive time less a margin, then the next request goes on a new connection, before the server can close the old one under it', async () => {
  let connections = 0;
  const server = http.createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ url: req.url }));
  }).on('connection', () => connections++);
  // Node answers "Keep-Alive: timeout=2": the client reuses the connection for 1 s after an answer.
  server.keepAliveTimeout = 2000;
  const port = await listen(server);
  const connection = new HttpConnection('127.0.0.1', port);
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  try {
    expect((await connection.send({ method: 'GET', path: '/a' })).status).toBe(200);
    await sleep(300);
    expect((await connection.send({ method: 'GET', path: '/b' })).body.toString()).toBe('{"url":"/b"}');
    expect(connections).toBe(1);
    // Idle 1.3 s: the server would still take it (it closes at 2 s), but it is past the client's second.
    await sleep(1300);
    expect((await connection.send({ method: 'GET', path: '/c' })).body.toString()).toBe('{"url":"/c"}');
    expect(connections).toBe(2);
  } finally {
    connection.close();
  }
});

test('when the server says how long it keeps a connection, then the client reuses it for a second less, and for at least half of it', () => {
  expect(reuseWithinMs(5)).toBe(4000);
  expect(reuseWithinMs(2)).toBe(1000);
  expect(reuseWithinMs(1)).toBe(500);
  const answer = (keepAlive: string) => parseResponse(Buffer.from(`HTTP/1.1 200 OK\r\nKeep-Alive: ${keepAlive}\r\nContent-Length: 2\r\n\r\nok`))?.keepAliveSeconds;
  expect(answer('timeout=5')).toBe(5);
  expect(answer('max=100, timeout=7')).toBe(7);
  expect(answer('max=100')).toBeNull();
  expect(parseResponse(Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok'))?.keepAliveSeconds).toBeNull();
});

test('when the server closes mid-answer, never answers, or is not there, then the request rejects with the reason', async () => {
  const port = await listen(net.createServer((socket) => {
    socket.once('data', (data) => {
      if (data.toString().startsWith('GET /cut')) socket.end('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly part');
    });
  }));
  const connection = new HttpConnection('127.0.0.1', port, 200);
  try {
    await expect(connection.send({ method: 'GET', path: '/cut' })).rejects.toThrow('the server closed the connection');
    await expect(connection.send({ method: 'GET', path: '/silent' })).rejects.toThrow('request timed out after 200 ms');
  } finally {
    connection.close();
  }
  const closedPort = await listen(net.createServer());
  await new Promise((resolve) => servers.pop()!.close(resolve));
  await expect(new HttpConnection('127.0.0.1', closedPort).send({ method: 'GET', path: '/' })).rejects.toThrow(/ECONNREFUSED/);
});

test('when an answer is not HTTP or has no length, then it is refused, not guessed at', () => {
  expect(() => parseResponse(Buffer.from('SSH-2.0-OpenSSH\r\n\r\n'))).toThrow('not an HTTP/1.1 status line');
  expect(() => parseResponse(Buffer.from('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nbody'))).toThrow('neither Content-Length nor chunked');
  expect(parseResponse(Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort'))).toBeNull();
  expect(parseResponse(Buffer.from('HTTP/1.1 200 OK\r\nContent-Len'))).toBeNull();
  const two = parseResponse(Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200 OK\r\n'));
  expect(two && { status: two.response.status, body: two.response.body.toString(), used: two.used }).toEqual({ status: 200, body: 'ok', used: 40 });
});

test('when a 16 MB answer, or a chunked one of many chunks, arrives in small pieces, then each is read whole and in order', async () => {
  const body = Buffer.alloc(16 * 1024 * 1024, 0);
  for (let i = 0; i < body.length; i++) body[i] = i % 251;
  const pieces = (data: Buffer, size: number) => Array.from({ length: Math.ceil(data.length / size) }, (_, i) => data.subarray(i * size, (i + 1) * size));
  const chunked = Buffer.concat([
    Buffer.from('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n'),
    ...pieces(body.subarray(0, 1024 * 1024), 8192).map((part) => Buffer.concat([Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from('\r\n')])),
    Buffer.from('0\r\n\r\n'),
  ]);
  const plain = Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n\r\n`), body]);
  const port = await listen(net.createServer((socket) => {
    socket.on('data', async (request) => {
      for (const piece of pieces(request.toString().startsWith('GET /chunked') ? chunked : plain, 16 * 1024)) {
        if (!socket.write(piece)) await new Promise((resolve) => socket.once('drain', resolve));
      }
    });
  }));
  const connection = new HttpConnection('127.0.0.1', port);
  try {
    const whole = await connection.send({ method: 'GET', path: '/plain' });
    expect(whole.status).toBe(200);
    expect(whole.body.equals(body)).toBe(true);
    const parts = await connection.send({ method: 'GET', path: '/chunked' });
    expect(parts.body.equals(body.subarray(0, 1024 * 1024))).toBe(true);
    // The connection is still usable after both.
    expect((await connection.send({ method: 'GET', path: '/plain' })).body.length).toBe(body.length);
  } finally {
    connection.close();
  }
});

test('when an answer is incomplete, then the bytes it needs before it can be complete are known', () => {
  const head = 'HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n';
  // The body's length is known: all of it.
  expect(responseBytesNeeded(Buffer.from(`${head}short`))).toBe(head.length + 10);
  // The head is not all there: one more byte.
  const partHead = 'HTTP/1.1 200 OK\r\nContent-Len';
  expect(responseBytesNeeded(Buffer.from(partHead))).toBe(partHead.length + 1);
  // Chunked: the end of the chunk being read, or one more byte while its size line is incomplete.
  const chunkedHead = 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n';
  expect(responseBytesNeeded(Buffer.from(`${chunkedHead}3\r\nabc\r\na\r\n01`))).toBe(chunkedHead.length + 8 + 3 + 10 + 2);
  expect(responseBytesNeeded(Buffer.from(`${chunkedHead}3\r\nabc\r\n1`))).toBe(chunkedHead.length + 8 + 2);
  // A chunked answer whose body is all there but the last chunk's line: one more byte.
  expect(responseBytesNeeded(Buffer.from(`${chunkedHead}0\r\n`))).toBe(chunkedHead.length + 4);
});
