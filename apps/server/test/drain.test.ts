// SIGTERM's drain of an API process (drainApi): the answer to a request in flight on a keep-alive
// connection says Connection: close and closes it, so a client (a proxy, a load balancer) sends
// nothing more on it that the 5 s grace would cut off.
import net from 'node:net';
import { createApiRuntime } from '@holdfast/api';
import { loadConfig } from '@holdfast/config';
import { drainApi, listenApi } from '../src/api-listen';

/** Resolves with what the socket has received once `done` says it is complete (or the socket ended). */
function receive(socket: net.Socket, state: { text: string; ended: boolean }, done: (text: string) => boolean): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      if (done(state.text) || state.ended) {
        socket.off('data', check);
        socket.off('end', check);
        resolve();
      }
    };
    socket.on('data', check);
    socket.on('end', check);
    check();
  });
}

const answers = (text: string) => text.split('HTTP/1.1 ').slice(1);
const whole = (answer: string) => {
  const [head, body = ''] = answer.split('\r\n\r\n');
  const length = Number(/content-length: (\d+)/i.exec(head!)?.[1] ?? 0);
  return answer.includes('\r\n\r\n') && Buffer.byteLength(body) >= length;
};

test('when the API drains while a keep-alive connection has a request in flight, then its answer says Connection: close and ends the connection', async () => {
  const config = loadConfig({ ...process.env, PORT: '0' });
  const rt = await createApiRuntime(config);
  const { server, port } = await listenApi(rt, config);
  const socket = net.connect(port, '127.0.0.1');
  const state = { text: '', ended: false };
  socket.on('data', (d: Buffer) => (state.text += d.toString()));
  socket.on('end', () => (state.ended = true));
  let drained: Promise<void> | undefined;
  try {
    await new Promise((r) => socket.once('connect', r));
    socket.write('GET /healthz HTTP/1.1\r\nHost: holdfast\r\n\r\n');
    await receive(socket, state, (t) => answers(t).length === 1 && whole(answers(t)[0]!));
    expect(answers(state.text)[0]).toMatch(/^200 [\s\S]*\r\nConnection: keep-alive\r\n/i);
    // A request arrives (its body not yet whole: it is in flight), then the drain starts.
    socket.write('POST /v1/webhooks/stripe HTTP/1.1\r\nHost: holdfast\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{');
    await new Promise((r) => setTimeout(r, 200));
    drained = drainApi(server, rt);
    socket.write('}');
    await receive(socket, state, (t) => answers(t).length === 2 && whole(answers(t)[1]!) && state.ended);
    const second = answers(state.text)[1]!;
    expect(second).toMatch(/^400 /);
    expect(second).toMatch(/\r\nConnection: close\r\n/i);
    expect(state.ended).toBe(true);
    await drained;
  } finally {
    socket.destroy();
    if (!drained) await drainApi(server, rt);
  }
});
