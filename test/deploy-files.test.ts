// docker-compose.yml and the Dockerfile cannot run here (no Docker engine), so
// this checks what users rely on: they parse, and name what the README promises.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

const root = path.resolve(__dirname, '..');
const compose = parse(readFileSync(path.join(root, 'docker-compose.yml'), 'utf8')) as {
  services: Record<string, {
    image?: string; build?: string; command?: string[]; environment?: Record<string, string>; depends_on?: Record<string, unknown>;
    profiles?: string[]; network_mode?: string;
  }>;
};
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

test('when the api and worker start, then they wait for healthy services and get their secrets from the environment', () => {
  for (const name of ['api', 'worker']) {
    const svc = compose.services[name]!;
    expect(svc.build).toBe('.');
    expect(Object.keys(svc.depends_on ?? {}).sort()).toEqual(['postgres', 'redis']);
    expect(svc.environment!.DATABASE_URL).toMatch(/@postgres:5432\//);
    expect(svc.environment!.REDIS_URL).toBe('redis://redis:6379');
    expect(svc.environment!.JWT_SECRET).toMatch(/^\$\{JWT_SECRET/);
    expect(svc.command!.join(' ')).toBe(`npm start -- --only ${name}`);
  }
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

test('when the Dockerfile is read, then it installs from the lock file on Node 20 and starts with npm start', () => {
  const lines = readFileSync(path.join(root, 'Dockerfile'), 'utf8').split('\n').filter((l) => l && !l.startsWith('#'));
  expect(lines[0]).toMatch(/^FROM node:20/);
  expect(lines).toContain('RUN npm ci --no-audit --no-fund');
  expect(lines[lines.length - 1]).toBe('CMD ["npm", "start"]');
  for (const l of lines.filter((x) => x.startsWith('COPY '))) {
    for (const src of l.split(/\s+/).slice(1, -1)) expect(existsSync(path.join(root, src))).toBe(true);
  }
});
