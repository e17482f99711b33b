// PL/pgSQL functions live readable in prisma/functions and encoded in their migration
// (scripts/function-migration.ts says why): the two must never drift apart.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { encodedFunction, FUNCTIONS_DIR } from '../scripts/function-migration';

const MIGRATIONS = path.join(__dirname, '..', 'prisma', 'migrations');

test('when a function source is in prisma/functions, then the latest migration defining it holds exactly its encoding, without a semicolon inside', () => {
  const names = readdirSync(FUNCTIONS_DIR).filter((f) => f.endsWith('.plpgsql')).map((f) => f.replace(/\.plpgsql$/, ''));
  expect(names).toContain('holdfast_confirm_batch');
  const migrations = readdirSync(MIGRATIONS).filter((d) => /^\d{14}_/.test(d)).sort();
  for (const name of names) {
    const defining = migrations.filter((d) => readFileSync(path.join(MIGRATIONS, d, 'migration.sql'), 'utf8').includes(`FUNCTION ${name}(`));
    expect(defining.length).toBeGreaterThan(0);
    const sql = readFileSync(path.join(MIGRATIONS, defining[defining.length - 1]!, 'migration.sql'), 'utf8');
    const encoded = encodedFunction(name);
    expect(sql).toContain(`AS ${encoded};`);
    expect(encoded.includes(';')).toBe(false);
  }
});
