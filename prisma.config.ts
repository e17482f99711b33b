// Prisma CLI configuration: the JS engine with the pg driver adapter, so
// `prisma generate` and `prisma migrate deploy` run without native engines.
import path from 'node:path';
import { defineConfig } from 'prisma/config';
import { PrismaPg } from '@prisma/adapter-pg';
import { createPgPool } from './packages/db/src/pg-pool';

// The schema's datasource reads DATABASE_URL; give the CLI the same default the app uses.
process.env.DATABASE_URL ??= 'postgresql://postgres@127.0.0.1:5432/holdfast';

export default defineConfig({
  experimental: { adapter: true },
  engine: 'js',
  schema: path.join('prisma', 'schema.prisma'),
  migrations: { path: path.join('prisma', 'migrations') },
  async adapter() {
    return new PrismaPg(createPgPool(process.env.DATABASE_URL as string, 2));
  },
});
