import { PrismaClient } from '@prisma/client';
import { PrismaPg } from '@prisma/adapter-pg';
import type pg from 'pg';
import { createPgPool } from './pg-pool';

export type Db = PrismaClient;

/** The pg pool under each client createDb made: the confirm batch runs on it directly (one statement, no Prisma). */
const pools = new WeakMap<Db, pg.Pool>();

export function poolOf(db: Db): pg.Pool | undefined {
  return pools.get(db);
}

export interface DbOptions {
  poolSize?: number;
  /** Fail a connection attempt after this long, so an unreachable database answers fast. */
  connectionTimeoutMillis?: number;
  /** Each statement's time, server and client side (0 or unset: no limit); see PgPoolOptions. */
  queryTimeoutMillis?: number;
  /** PostgreSQL ends a session idle inside a transaction this long (0 or unset: never). */
  idleInTransactionTimeoutMillis?: number;
  /** TCP keepalive, first probe after this long idle (0 or unset: off). */
  keepAliveMillis?: number;
}

/** The one place that creates the Prisma client: the JS engine over node-postgres. */
export function createDb(databaseUrl: string, options: DbOptions = {}): Db {
  const pool = createPgPool(databaseUrl, options.poolSize ?? 20, {
    connectionTimeoutMillis: options.connectionTimeoutMillis ?? 2000,
    queryTimeoutMillis: options.queryTimeoutMillis,
    idleInTransactionTimeoutMillis: options.idleInTransactionTimeoutMillis,
    keepAliveMillis: options.keepAliveMillis,
  });
  const db = new PrismaClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) });
  pools.set(db, pool);
  return db;
}
