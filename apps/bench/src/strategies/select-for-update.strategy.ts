import type { SaleStrategy } from '../race-lab.types';
import { countRows, createPriceTable, dropTables, openPgClient, readPrice } from './sale-tables.repository';

/**
 * The pessimistic counter: `SELECT ... FOR UPDATE` locks the counter row until
 * commit, so buyers queue on it one at a time. Correct, and serial by design.
 */
export function selectForUpdateStrategy(): SaleStrategy {
  return {
    id: 'select-for-update',
    title: 'SELECT ... FOR UPDATE on the counter',
    fenced: true,
    async prepare({ pool, sale }) {
      await dropTables(pool, ['sfu_stock', 'sfu_purchase']);
      await createPriceTable(pool, 'sfu_price', sale.priceCents);
      await pool.query('CREATE TABLE sfu_stock (id int PRIMARY KEY, capacity int NOT NULL, sold int NOT NULL)');
      await pool.query('CREATE TABLE sfu_purchase (id bigserial PRIMARY KEY, buyer_id int NOT NULL, price_cents int NOT NULL)');
      await pool.query('INSERT INTO sfu_stock (id, capacity, sold) VALUES (1, $1, 0)', [sale.tickets]);
    },
    openClient: (resources) =>
      openPgClient(resources, async (client, buyerId) => {
        await client.query('BEGIN');
        const stock = await client.query<{ capacity: number; sold: number }>(
          'SELECT capacity, sold FROM sfu_stock WHERE id = 1 FOR UPDATE',
        );
        const row = stock.rows[0];
        if (!row || row.sold >= row.capacity) {
          await client.query('COMMIT');
          return { kind: 'sold_out' };
        }
        const price = await readPrice(client, 'sfu_price');
        await client.query('UPDATE sfu_stock SET sold = $1 WHERE id = 1', [row.sold + 1]);
        await client.query('INSERT INTO sfu_purchase (buyer_id, price_cents) VALUES ($1, $2)', [buyerId, price]);
        await client.query('COMMIT');
        return { kind: 'bought' };
      }),
    async tally({ pool }) {
      const counter = await pool.query<{ sold: number }>('SELECT sold FROM sfu_stock WHERE id = 1');
      return { sold: await countRows(pool, 'sfu_purchase'), counterSays: counter.rows[0]?.sold ?? 0 };
    },
    cleanup: ({ pool }) => dropTables(pool, ['sfu_stock', 'sfu_purchase', 'sfu_price']),
  };
}
