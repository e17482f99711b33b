import { spawn } from 'node:child_process';
import path from 'node:path';
import pg from 'pg';

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/** Creates the database named in the URL when it does not exist yet. */
export async function ensureDatabase(databaseUrl: string): Promise<boolean> {
  const name = decodeURIComponent(new URL(databaseUrl).pathname.slice(1));
  if (!name) throw new Error('DATABASE_URL names no database');
  const client = new pg.Client({ connectionString: withDatabase(databaseUrl, 'postgres'), connectionTimeoutMillis: 3000 });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount) return false;
    try {
      await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
    } catch (err) {
      // Another process created it at the same moment.
      if ((err as { code?: string }).code !== '42P04' && (err as { code?: string }).code !== '23505') throw err;
      return false;
    }
    return true;
  } finally {
    await client.end();
  }
}

/** One round trip to check the database answers. */
export async function pingDatabase(databaseUrl: string, timeoutMs = 2000): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: timeoutMs });
  await client.connect();
  await client.query('SELECT 1');
  await client.end();
}

const ROOT = path.resolve(__dirname, '../../..');

/** Applies the migrations in prisma/migrations with `prisma migrate deploy`. */
export function migrateDatabase(databaseUrl: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const bin = path.join(ROOT, 'node_modules', '.bin', 'prisma');
    const child = spawn(bin, ['migrate', 'deploy'], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: databaseUrl, PRISMA_HIDE_UPDATE_MESSAGE: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`prisma migrate deploy failed (exit ${code}): ${output.trim().split('\n').slice(-3).join(' ')}`)),
    );
  });
}
