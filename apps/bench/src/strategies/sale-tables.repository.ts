import type { Pool, PoolClient } from 'pg';

import type { LabResources, PurchaseOutcome, SaleClient } from '../race-lab.types';

/**
 * The price lives in its own table, and every strategy reads it between
 * looking at the stock and writing the sale: one honest network round trip,
 * exactly the window in which a real checkout looks something up.
 */
export async function createPriceTable(pool: Pool, table: string, priceCents: number): Promise<void> {
  await pool.query(`DROP TABLE IF EXISTS ${table}`);
  await pool.query(`CREATE TABLE ${table} (sale_id int PRIMARY KEY, price_cents int NOT NULL)`);
  await pool.query(`INSERT INTO ${table} (sale_id, price_cents) VALUES (1, $1)`, [priceCents]);
}

export async function readPrice(client: PoolClient, table: string): Promise<number> {
  const result = await client.query<{ price_cents: number }>(`SELECT price_cents FROM ${table} WHERE sale_id = 1`);
  const row = result.rows[0];
  if (!row) throw new Error(`no price in ${table}`);
  return row.price_cents;
}

export async function countRows(pool: Pool, table: string): Promise<number> {
  const result = await pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`);
  return Number(result.rows[0]?.n ?? 0);
}

export async function dropTables(pool: Pool, tables: string[]): Promise<void> {
  await pool.query(`DROP TABLE IF EXISTS ${tables.join(', ')}`);
}

/** A pg connection held by one buyer loop for the whole sale, purchases run inside a transaction. */
export async function openPgClient(
  resources: LabResources,
  purchase: (client: PoolClient, buyerId: number) => Promise<PurchaseOutcome>,
): Promise<SaleClient> {
  const client = await resources.pool.connect();
  return {
    purchase: async (buyerId) => {
      try {
        return await purchase(client, buyerId);
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    },
    close: async () => client.release(),
  };
}
