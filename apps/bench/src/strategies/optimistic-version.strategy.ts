import type { SaleStrategy } from '../race-lab.types';
import { countRows, createPriceTable, dropTables, openPgClient, readPrice } from './sale-tables.repository';

interface OptimisticOptions {
  /** Attempts per buyer before giving up (the first try included). */
  maxAttempts: number;
}

/**
 * The optimistic counter: read the count and its version without a lock, then
 * `UPDATE ... WHERE version = <what I read>`. A lost race updates no row and
 * the buyer retries; after `maxAttempts` lost races the buyer is turned away
 * even though tickets may remain: never an oversell, but wrongly refused buyers
 * under contention.
 */
export function optimisticVersionStrategy(options: OptimisticOptions = { maxAttempts: 3 }): SaleStrategy {
  return {
    id: 'optimistic-version',
    title: `optimistic version column (${options.maxAttempts} attempts)`,
    fenced: true,
    async prepare({ pool, sale }) {
      await dropTables(pool, ['opt_stock', 'opt_purchase']);
      await createPriceTable(pool, 'opt_price', sale.priceCents);
      await pool.query(
        'CREATE TABLE opt_stock (id int PRIMARY KEY, capacity int NOT NULL, sold int NOT NULL, version int NOT NULL)',
      );
      await pool.query('CREATE TABLE opt_purchase (id bigserial PRIMARY KEY, buyer_id int NOT NULL, price_cents int NOT NULL)');
      await pool.query('INSERT INTO opt_stock (id, capacity, sold, version) VALUES (1, $1, 0, 0)', [sale.tickets]);
    },
    openClient: (resources) =>
      openPgClient(resources, async (client, buyerId) => {
        for (let attempt = 1; attempt <= options.maxAttempts; attempt += 1) {
          const stock = await client.query<{ capacity: number; sold: number; version: number }>(
            'SELECT capacity, sold, version FROM opt_stock WHERE id = 1',
          );
          const row = stock.rows[0];
          if (!row || row.sold >= row.capacity) return { kind: 'sold_out' };
          const price = await readPrice(client, 'opt_price');
          await client.query('BEGIN');
          const updated = await client.query(
            'UPDATE opt_stock SET sold = sold + 1, version = version + 1 WHERE id = 1 AND version = $1',
            [row.version],
          );
          if (updated.rowCount === 1) {
            await client.query('INSERT INTO opt_purchase (buyer_id, price_cents) VALUES ($1, $2)', [buyerId, price]);
            await client.query('COMMIT');
            return { kind: 'bought' };
          }
          await client.query('ROLLBACK');
          // The usual jittered back-off before trying again.
          if (attempt < options.maxAttempts) await sleep(Math.random() * attempt * 2);
        }
        return { kind: 'gave_up', attempts: options.maxAttempts };
      }),
    async tally({ pool }) {
      const counter = await pool.query<{ sold: number }>('SELECT sold FROM opt_stock WHERE id = 1');
      return { sold: await countRows(pool, 'opt_purchase'), counterSays: counter.rows[0]?.sold ?? 0 };
    },
    cleanup: ({ pool }) => dropTables(pool, ['opt_stock', 'opt_purchase', 'opt_price']),
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
