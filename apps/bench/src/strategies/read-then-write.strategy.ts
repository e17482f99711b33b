import type { SaleStrategy } from '../race-lab.types';
import { countRows, createPriceTable, dropTables, openPgClient, readPrice } from './sale-tables.repository';

/**
 * The naive counter: read how many are sold, look up the price (a round trip),
 * then write back "what I read plus one" and record the purchase. Two buyers
 * that read the same count both buy, and one of the two increments is lost:
 * the counter lags behind the purchases, and the sale oversells.
 */
export function readThenWriteStrategy(): SaleStrategy {
  return {
    id: 'read-then-write',
    title: 'read-then-write counter (no lock)',
    fenced: false,
    async prepare({ pool, sale }) {
      await dropTables(pool, ['rtw_stock', 'rtw_purchase']);
      await createPriceTable(pool, 'rtw_price', sale.priceCents);
      await pool.query('CREATE TABLE rtw_stock (id int PRIMARY KEY, capacity int NOT NULL, sold int NOT NULL)');
      await pool.query('CREATE TABLE rtw_purchase (id bigserial PRIMARY KEY, buyer_id int NOT NULL, price_cents int NOT NULL)');
      await pool.query('INSERT INTO rtw_stock (id, capacity, sold) VALUES (1, $1, 0)', [sale.tickets]);
    },
    openClient: (resources) =>
      openPgClient(resources, async (client, buyerId) => {
        await client.query('BEGIN');
        const stock = await client.query<{ capacity: number; sold: number }>(
          'SELECT capacity, sold FROM rtw_stock WHERE id = 1',
        );
        const row = stock.rows[0];
        if (!row || row.sold >= row.capacity) {
          await client.query('COMMIT');
          return { kind: 'sold_out' };
        }
        const price = await readPrice(client, 'rtw_price');
        await client.query('UPDATE rtw_stock SET sold = $1 WHERE id = 1', [row.sold + 1]);
        await client.query('INSERT INTO rtw_purchase (buyer_id, price_cents) VALUES ($1, $2)', [buyerId, price]);
        await client.query('COMMIT');
        return { kind: 'bought' };
      }),
    async tally({ pool }) {
      const counter = await pool.query<{ sold: number }>('SELECT sold FROM rtw_stock WHERE id = 1');
      return { sold: await countRows(pool, 'rtw_purchase'), counterSays: counter.rows[0]?.sold ?? 0 };
    },
    cleanup: ({ pool }) => dropTables(pool, ['rtw_stock', 'rtw_purchase', 'rtw_price']),
  };
}
