// The bench runs holdfast's API with the node flags `npm start` gives it (the
// root package.json's start script), so it measures the server users run.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openHoldfastFixture, type HoldfastFixture } from '../src/holdfast/holdfast.fixture';
import { startNodeFlags } from '../src/holdfast/start-node-flags';

const dir = mkdtempSync(path.join(tmpdir(), 'holdfast-start-flags-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function packageJsonWith(start: string | undefined): string {
  const file = path.join(dir, `package-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify({ name: 'x', scripts: start === undefined ? {} : { start } }));
  return file;
}

test('when the start script gives node flags before the entry, then startNodeFlags reads exactly those', () => {
  expect(startNodeFlags(packageJsonWith('tsx --max-semi-space-size=64 --stack-trace-limit=20 apps/server/src/main.ts --only api')))
    .toEqual(['--max-semi-space-size=64', '--stack-trace-limit=20']);
  expect(startNodeFlags(packageJsonWith('tsx apps/server/src/main.ts'))).toEqual([]);
  expect(startNodeFlags(packageJsonWith('npm run build:server --silent && exec node --max-semi-space-size=64 apps/server/dist/main.js')))
    .toEqual(['--max-semi-space-size=64']);
});

test('when the start script does not run node or tsx, then startNodeFlags says so instead of guessing', () => {
  expect(() => startNodeFlags(packageJsonWith('npm run build && bun dist/main.js'))).toThrow(/does not run node or tsx: npm run build && bun dist\/main.js/);
  expect(() => startNodeFlags(packageJsonWith(undefined))).toThrow(/does not run node or tsx: \(none\)/);
});

test('when npm start runs the server, then it sizes V8\'s young generation (--max-semi-space-size)', () => {
  expect(startNodeFlags()).toEqual(expect.arrayContaining([expect.stringMatching(/^--max-semi-space-size=\d+$/)]));
});

describe('the bench\'s API child', () => {
  let fixture: HoldfastFixture;
  beforeAll(async () => {
    fixture = await openHoldfastFixture();
  }, 60_000);
  afterAll(() => fixture.close());

  test('when the bench starts holdfast\'s API, then the process runs with npm start\'s node flags and the bench\'s own after them', async () => {
    const api = await fixture.startApi({ nodeArgs: ['--stack-trace-limit=17'] });
    try {
      const argv = readFileSync(`/proc/${api.pid}/cmdline`, 'utf8').split('\0');
      const wanted = [...startNodeFlags(), '--stack-trace-limit=17'];
      const at = wanted.map((flag) => argv.indexOf(flag));
      expect(at.every((i) => i > 0)).toBe(true);
      expect([...at].sort((a, b) => a - b)).toEqual(at);
    } finally {
      await api.stop();
    }
  }, 60_000);
});
