import type { SaleStrategy } from '../race-lab.types';
import { countRows, createPriceTable, dropTables, openPgClient, readPrice } from './sale-tables.repository';

/**
 * One row per ticket: each buyer takes the first free ticket nobody else has
 * locked (`FOR UPDATE SKIP LOCKED`), so buyers proceed in parallel on
 * different rows instead of queueing on one counter.
 */
export function skipLockedStrategy(): SaleStrategy {
  return {
    id: 'skip-locked',
    title: 'row per ticket, FOR UPDATE SKIP LOCKED',
    fenced: true,
    async prepare({ pool, sale }) {
      await dropTables(pool, ['skl_ticket', 'skl_purchase']);
      await createPriceTable(pool, 'skl_price', sale.priceCents);
      await pool.query('CREATE TABLE skl_ticket (id int PRIMARY KEY, buyer_id int)');
      await pool.query('CREATE INDEX skl_ticket_free ON skl_ticket (id) WHERE buyer_id IS NULL');
      await pool.query(
        'CREATE TABLE skl_purchase (id bigserial PRIMARY KEY, buyer_id int NOT NULL, ticket_id int NOT NULL, price_cents int NOT NULL)',
      );
      await pool.query('INSERT INTO skl_ticket (id) SELECT generate_series(1, $1::int)', [sale.tickets]);
      await pool.query('ANALYZE skl_ticket');
    },
    openClient: (resources) =>
      openPgClient(resources, async (client, buyerId) => {
        await client.query('BEGIN');
        const free = await client.query<{ id: number }>(
          'SELECT id FROM skl_ticket WHERE buyer_id IS NULL ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED',
        );
        const ticket = free.rows[0];
        if (!ticket) {
          await client.query('COMMIT');
          return { kind: 'sold_out' };
        }
        const price = await readPrice(client, 'skl_price');
        await client.query('UPDATE skl_ticket SET buyer_id = $1 WHERE id = $2', [buyerId, ticket.id]);
        await client.query('INSERT INTO skl_purchase (buyer_id, ticket_id, price_cents) VALUES ($1, $2, $3)', [
          buyerId,
          ticket.id,
          price,
        ]);
        await client.query('COMMIT');
        return { kind: 'bought' };
      }),
    async tally({ pool }) {
      const taken = await pool.query<{ n: string }>('SELECT count(*) AS n FROM skl_ticket WHERE buyer_id IS NOT NULL');
      return { sold: await countRows(pool, 'skl_purchase'), counterSays: Number(taken.rows[0]?.n ?? 0) };
    },
    cleanup: ({ pool }) => dropTables(pool, ['skl_ticket', 'skl_purchase', 'skl_price']),
  };
}
