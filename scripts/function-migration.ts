/**
 * PL/pgSQL functions in Prisma migrations. `prisma migrate deploy` over
 * @prisma/adapter-pg (engine "js") runs a migration by splitting its text at
 * every ";" (executeScript), which cuts a dollar-quoted function body apart. So
 * a migration carries the body as an E'' string with every ";" written \073 (and
 * quotes and backslashes escaped); the readable source is
 * prisma/functions/<name>.plpgsql, and test/function-migrations.test.ts checks
 * that the migration holds exactly its encoding.
 *
 *   npx tsx scripts/function-migration.ts holdfast_confirm_batch   # prints the encoded body
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

export const FUNCTIONS_DIR = path.join(__dirname, '..', 'prisma', 'functions');

/** The body as a PostgreSQL E'' literal without a single ";" character. */
export function encodeBody(body: string): string {
  const escaped = body.replace(/\\/g, '\\\\').replace(/'/g, "''").replace(/;/g, '\\073');
  return `E'${escaped}'`;
}

export function encodedFunction(name: string): string {
  return encodeBody(readFileSync(path.join(FUNCTIONS_DIR, `${name}.plpgsql`), 'utf8'));
}

if (require.main === module) {
  const name = process.argv[2];
  if (!name) throw new Error('usage: function-migration.ts <function name>');
  process.stdout.write(`${encodedFunction(name)}\n`);
}
