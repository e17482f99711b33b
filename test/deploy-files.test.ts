// docker-compose.yml and the Dockerfile cannot run here (no Docker engine), so
// this checks what users rely on: they parse, and name what the README promises.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

const root = path.resolve(__dirname, '..');
const compose = parse(readFileSync(path.join(root, 'docker-compose.yml'), 'utf8')) as {
  services: Record<string, {
    image?: string; build?: string; command?: string[]; environment?: Record<string, string>; depends_on?: Record<string, unknown>;
    profiles?: string[]; network_mode?: string; init?: boolean; healthcheck?: { test: string[] };
  }>;
};
interface Stage { from: string; lines: string[] }
/** The Dockerfile's instructions (comments and blank lines dropped, continuations joined), by stage, and its last CMD. */
const dockerfile = (() => {
  const lines = readFileSync(path.join(root, 'Dockerfile'), 'utf8').replace(/\\\n\s*/g, ' ').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  const stages: Stage[] = [];
  for (const l of lines) {
    if (l.startsWith('FROM ')) stages.push({ from: l.slice(5), lines: [] });
    else stages[stages.length - 1]!.lines.push(l);
  }
  const cmd = lines.filter((l) => l.startsWith('CMD ')).pop()!;
  return { stages, cmd: JSON.parse(cmd.slice(4)) as string[] };
})();
const byDefault = Object.keys(compose.services).filter((name) => !compose.services[name]!.profiles);
const inCluster = Object.keys(compose.services).filter((name) => compose.services[name]!.profiles?.includes('cluster'));

test('when docker-compose.yml is parsed, then it has postgres, redis, the api and the worker', () => {
  expect(byDefault.sort()).toEqual(['api', 'postgres', 'redis', 'worker']);
  expect(compose.services.postgres!.image).toMatch(/^postgres:15/);
  expect(compose.services.redis!.image).toMatch(/^redis:7/);
});

test('when Redis is started by compose, then it keeps an append-only file and never evicts', () => {
  const cmd = compose.services.redis!.command!.join(' ');
  expect(cmd).toContain('--appendonly yes');
  expect(cmd).toContain('--maxmemory-policy noeviction');
});

test('when the api and worker start, then they run the compiled server with node, wait for healthy services and get their secrets from the environment', () => {
  for (const name of ['api', 'worker']) {
    const svc = compose.services[name]!;
    expect(svc.build).toBe('.');
    expect(Object.keys(svc.depends_on ?? {}).sort()).toEqual(['postgres', 'redis']);
    expect(svc.environment!.DATABASE_URL).toMatch(/@postgres:5432\//);
    expect(svc.environment!.REDIS_URL).toBe('redis://redis:6379');
    expect(svc.environment!.JWT_SECRET).toBe('${JWT_SECRET:-}');
    expect(svc.environment!.STRIPE_WEBHOOK_SECRET).toBe('${STRIPE_WEBHOOK_SECRET:-}');
    expect(svc.command).toEqual([...dockerfile.cmd, '--only', name]);
    expect(svc.init).toBe(true);
  }
  // Compose checks a required variable (`${X:?}`) for the whole file: `up -d postgres redis` would refuse without the secrets.
  expect(readFileSync(path.join(root, 'docker-compose.yml'), 'utf8')).not.toMatch(/\$\{[A-Z_]+:\?/);
  // The worker serves no HTTP API (the image's check): compose checks its metrics instead.
  expect(compose.services.worker!.healthcheck!.test.join(' ')).toMatch(/^CMD node -e .*127\.0\.0\.1:9464\/metrics/);
  expect(compose.services.api!.healthcheck).toBeUndefined();
});

test('when the cluster profile is parsed, then six cluster nodes on 7100-7105 never evict and a one-shot joins them with one replica each', () => {
  const nodes = inCluster.filter((n) => n.startsWith('redis-node-'));
  expect(nodes).toHaveLength(6);
  const ports = nodes.map((n) => {
    const cmd = compose.services[n]!.command!;
    expect(cmd.join(' ')).toContain('--cluster-enabled yes');
    expect(cmd.join(' ')).toContain('--maxmemory-policy noeviction');
    return Number(cmd[cmd.indexOf('--port') + 1]);
  });
  expect(ports.sort()).toEqual([7100, 7101, 7102, 7103, 7104, 7105]);
  const create = compose.services['redis-cluster']!;
  expect(create.command!.join(' ')).toMatch(/redis-cli --cluster create( 127\.0\.0\.1:710\d){6} --cluster-replicas 1 --cluster-yes/);
  expect(Object.keys(create.depends_on!).sort()).toEqual(nodes.sort());
});

test('when the Dockerfile is read, then it builds in a stage with every dependency and runs in a stage on Node 20 with production dependencies only, as a non-root user', () => {
  expect(dockerfile.stages.map((st) => st.from)).toEqual([expect.stringMatching(/^node:20-slim AS build$/), expect.stringMatching(/^node:20-slim$/)]);
  const [build, run] = dockerfile.stages as [Stage, Stage];
  expect(build.lines).toContain('RUN npm ci --no-audit --no-fund');
  expect(build.lines).toContain('RUN npm run build:server && node scripts/stage-release.mjs /stage');
  for (const l of build.lines.filter((x) => x.startsWith('COPY '))) {
    for (const src of l.split(/\s+/).slice(1, -1)) expect(existsSync(path.join(root, src))).toBe(true);
  }
  // The final stage takes nothing from the build context: only the staged release, the generated Prisma client, and a production install.
  expect(run.lines.filter((l) => l.startsWith('COPY ')).map((l) => l.split(/\s+/)[1])).toEqual(['--from=build', '--from=build', '--from=build']);
  expect(run.lines).toContain('ENV NODE_ENV=production');
  expect(run.lines.filter((l) => /\bnpm (ci|install|i)\b/.test(l))).toEqual(['RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force']);
  expect(run.lines).toContain('COPY --from=build /src/node_modules/.prisma ./node_modules/.prisma');
  const user = run.lines.findIndex((l) => l.startsWith('USER '));
  expect(user).toBeGreaterThan(-1);
  expect(run.lines[user]).not.toMatch(/^USER (root|0)(:|$)/);
  expect(user).toBeLessThan(run.lines.findIndex((l) => l.startsWith('CMD ')));
});

test('when the image starts, then node runs the compiled server with the semi-space flag and the health check asks /healthz (not /readyz: a database outage must not get the container replaced)', () => {
  expect(dockerfile.cmd).toEqual(['node', '--max-semi-space-size=64', 'apps/server/dist/main.js']);
  expect(readFileSync(path.join(root, 'package.json'), 'utf8')).toContain(`"start": "npm run build:server --silent && exec ${dockerfile.cmd.join(' ')}"`);
  const check = dockerfile.stages[1]!.lines.find((l) => l.startsWith('HEALTHCHECK '))!;
  expect(check).toMatch(/--start-period=\d+s/);
  const cmd = JSON.parse(check.slice(check.indexOf(' CMD ') + 5)) as string[];
  expect(cmd[0]).toBe('node'); // node:20-slim has no curl or wget
  expect(cmd.join(' ')).toMatch(/127\.0\.0\.1:' \+ \(process\.env\.PORT \|\| 3000\) \+ '\/healthz'/);
});

test('when the final stage installs with --omit=dev, then what only builds, tests or runs TypeScript is left out by the lock file', () => {
  const lock = JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean }> };
  for (const tool of ['tsx', 'esbuild', 'vite', '@preact/preset-vite', 'turbo', 'jest', 'ts-jest', 'eslint', 'playwright-core']) {
    expect({ tool, dev: lock.packages[`node_modules/${tool}`]?.dev }).toEqual({ tool, dev: true });
  }
  // What the server needs at run time, migrations included, stays.
  for (const needed of ['prisma', '@prisma/client', '@prisma/adapter-pg', 'pg', 'express', 'ioredis', 'bullmq']) {
    expect({ needed, dev: lock.packages[`node_modules/${needed}`]?.dev }).toEqual({ needed, dev: undefined });
  }
});

test('when the build context is sent, then .dockerignore leaves out dependencies, builds and git', () => {
  const ignored = readFileSync(path.join(root, '.dockerignore'), 'utf8').split('\n').filter((l) => l && !l.startsWith('#'));
  expect(ignored).toEqual(expect.arrayContaining(['node_modules', '**/node_modules', '**/dist', '.git', '.env']));
});
