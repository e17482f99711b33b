import { bucketProfile, HOLD_PATH_BUCKETS, OTHER_BUCKET } from '../src/cpu-profile.buckets';
import type { CpuProfile } from '../src/cpu-profile.summary';

// A profile as V8 writes one: a tree of call frames, and samples (a leaf node each) with the
// microseconds since the one before. Paths are as a server of this checkout has them.
const frames = {
  root: { functionName: '(root)', url: '', lineNumber: -1 },
  idle: { functionName: '(idle)', url: '', lineNumber: -1 },
  gc: { functionName: '(garbage collector)', url: '', lineNumber: -1 },
  emit: { functionName: 'emit', url: 'node:events', lineNumber: 470 },
  serverOnRequest: { functionName: 'parserOnIncoming', url: 'node:_http_server', lineNumber: 1000 },
  fastPath: { functionName: 'run', url: 'file:///repo/apps/api/src/fast-path.ts', lineNumber: 1 },
  verify: { functionName: 'verify', url: 'file:///repo/apps/api/src/middleware/token-verifier.ts', lineNumber: 1 },
  takeHold: { functionName: 'takeHold', url: 'file:///repo/packages/domain/src/create-hold.ts', lineNumber: 1 },
  sendCommand: { functionName: 'sendCommand', url: 'file:///repo/node_modules/ioredis/built/Redis.js', lineNumber: 337 },
  writevGeneric: { functionName: 'writevGeneric', url: 'node:internal/stream_base_commons', lineNumber: 122 },
  writev: { functionName: 'writev', url: '', lineNumber: -1 },
  end: { functionName: 'end', url: 'node:_http_outgoing', lineNumber: 1000 },
  stringify: { functionName: 'stringify', url: '', lineNumber: -1 },
  drain: { functionName: 'drain', url: 'file:///repo/packages/domain/src/hold-persister.ts', lineNumber: 1 },
  query: { functionName: 'query', url: 'file:///repo/node_modules/pg/lib/client.js', lineNumber: 1 },
  telemetry: { functionName: '', url: 'file:///repo/apps/api/src/middleware/request-telemetry.ts', lineNumber: 1 },
};
type Name = keyof typeof frames;

/**
 * Builds a profile from samples back to back, the first at `startTime`: each a stack (outermost
 * first, under the root) that ran for `us`. V8 gives sample i the time startTime + timeDeltas[0..i]
 * and counts for it timeDeltas[i + 1], the time to the next sample; an idle sample ends the list.
 */
function profileOf(startTime: number, samples: Array<{ stack: Name[]; us: number }>): CpuProfile {
  const nodes: CpuProfile['nodes'] = [{ id: 1, callFrame: frames.root, children: [] }];
  const leafOf = (stack: Name[]): number => {
    let parent = nodes[0]!;
    for (const name of stack) {
      let child = parent.children!.map((id) => nodes.find((n) => n.id === id)!).find((n) => n.callFrame === frames[name]);
      if (!child) {
        child = { id: nodes.length + 1, callFrame: frames[name], children: [] };
        nodes.push(child);
        parent.children!.push(child.id);
      }
      parent = child;
    }
    return parent.id;
  };
  const all = [...samples, { stack: ['idle'] as Name[], us: 0 }];
  return {
    nodes,
    startTime,
    endTime: startTime + samples.reduce((sum, s) => sum + s.us, 0),
    samples: all.map((s) => leafOf(s.stack)),
    timeDeltas: all.map((_, i) => (i === 0 ? 0 : all[i - 1]!.us)),
  };
}

const share = (result: ReturnType<typeof bucketProfile>, name: string) => result.byBucket.find((b) => b.name === name)?.us ?? NaN;
const bucketNamed = (start: string) => HOLD_PATH_BUCKETS.find((b) => b.name.startsWith(start))!.name;

test('when samples ran under Redis\'s client, the hold, the token check, the drain, the request\'s telemetry and node:http, then each part gets its own time, and idle time none', () => {
  const profile = profileOf(1_000_000, [
    { stack: ['serverOnRequest', 'fastPath', 'verify'], us: 10 },
    { stack: ['serverOnRequest', 'fastPath', 'takeHold'], us: 20 },
    // A socket write under ioredis, itself under the hold: Redis's client's.
    { stack: ['serverOnRequest', 'fastPath', 'takeHold', 'sendCommand', 'writevGeneric', 'writev'], us: 30 },
    // The answer's write: node:http's, though the request's handler is on the stack.
    { stack: ['fastPath', 'end', 'writevGeneric', 'writev'], us: 40 },
    // Native code a handler of the server's own called: the rest.
    { stack: ['serverOnRequest', 'fastPath', 'stringify'], us: 50 },
    { stack: ['drain', 'query'], us: 60 },
    { stack: ['serverOnRequest', 'fastPath', 'telemetry'], us: 5 },
    { stack: ['gc'], us: 70 },
    { stack: ['idle'], us: 1000 },
    // Node's own code under no part: the rest.
    { stack: ['emit'], us: 1 },
  ]);
  const result = bucketProfile(profile, [{ startUs: 0, endUs: Number.MAX_SAFE_INTEGER }], HOLD_PATH_BUCKETS);

  expect(share(result, bucketNamed('authentication'))).toBe(10);
  expect(share(result, bucketNamed('the hold itself'))).toBe(20);
  expect(share(result, bucketNamed('Redis client'))).toBe(30);
  expect(share(result, bucketNamed('HTTP'))).toBe(40);
  expect(share(result, bucketNamed('persisting holds'))).toBe(60);
  expect(share(result, bucketNamed('garbage collection'))).toBe(70);
  expect(share(result, bucketNamed('metrics'))).toBe(5);
  expect(share(result, OTHER_BUCKET)).toBe(50 + 1);
  expect(result.busyUs).toBe(10 + 20 + 30 + 40 + 50 + 60 + 5 + 70 + 1);
  expect(result.samples).toBe(11);
});

test('when a window covers only some samples, then only those count, by the time each sample was taken', () => {
  // Samples at 1,000,000 + 0, 100, 200, 300 µs of the profiled process's clock.
  const profile = profileOf(1_000_000, [
    { stack: ['fastPath', 'verify'], us: 100 },
    { stack: ['fastPath', 'takeHold'], us: 100 },
    { stack: ['gc'], us: 100 },
    { stack: ['fastPath', 'end'], us: 100 },
  ]);

  const middle = bucketProfile(profile, [{ startUs: 1_000_100, endUs: 1_000_300 }], HOLD_PATH_BUCKETS);
  expect(middle.busyUs).toBe(200);
  expect(share(middle, bucketNamed('the hold itself'))).toBe(100);
  expect(share(middle, bucketNamed('garbage collection'))).toBe(100);

  const twoWindows = bucketProfile(profile, [{ startUs: 1_000_000, endUs: 1_000_001 }, { startUs: 1_000_300, endUs: 1_000_301 }], HOLD_PATH_BUCKETS);
  expect([share(twoWindows, bucketNamed('authentication')), share(twoWindows, bucketNamed('HTTP')), twoWindows.busyUs]).toEqual([100, 100, 200]);

  expect(bucketProfile(profile, [{ startUs: 0, endUs: 1_000_000 }], HOLD_PATH_BUCKETS).samples).toBe(0);
});
