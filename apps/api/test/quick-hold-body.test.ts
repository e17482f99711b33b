// quickHoldBody is the hold endpoint's hand-checked body parse: whatever it accepts, the schema
// (createHoldBody) must accept to an equal output, and what it declines goes to the schema.
import fc from 'fast-check';
import { createHoldBody, quickHoldBody } from '@holdfast/contracts';

/** Each body through both: quick's output, when it gives one, is exactly the schema's. */
function agrees(raw: unknown): 'quick' | 'schema' {
  const quick = quickHoldBody(raw);
  const schema = createHoldBody.safeParse(raw);
  if (quick === undefined) return 'schema';
  expect(schema.success).toBe(true);
  expect(quick).toStrictEqual(schema.data);
  return 'quick';
}

const seat = fc.oneof(fc.uuid(), fc.string({ minLength: 0, maxLength: 210 }), fc.constantFrom('', 'x'.repeat(200), 'x'.repeat(201), '\u0000', '\ud800'));
const seatList = fc.array(seat, { minLength: 0, maxLength: 105 });
const body = fc.oneof(
  // The common shape, so that the hand check takes about a tenth of the bodies (about 300 of
  // 3,000, against the 100 asserted below; the other arms alone gave it about 100, and one run 99).
  fc.record({ seatIds: fc.array(fc.uuid(), { minLength: 1, maxLength: 8 }) }),
  fc.record({ seatIds: seatList }),
  fc.record({ seatIds: fc.oneof(seatList, fc.jsonValue({ maxDepth: 2 })) }, { requiredKeys: [] }),
  fc.record({ seatIds: seatList, quantity: fc.integer() }),
  fc.record({ seatIds: seatList, tier: fc.string() }),
  fc.dictionary(fc.constantFrom('seatIds', 'tier', 'quantity', 'ticketTypeId', 'note', '__proto__'), fc.jsonValue({ maxDepth: 2 })),
  fc.jsonValue({ maxDepth: 3 }),
);

test('when a body is any JSON value, then quickHoldBody gives the schema’s output or leaves the body to the schema', () => {
  let quick = 0;
  fc.assert(fc.property(body, (raw) => {
    if (agrees(raw) === 'quick') quick += 1;
  }), { numRuns: 3000 });
  // The property is not vacuous: the hand check took part of the bodies.
  expect(quick).toBeGreaterThan(100);
});

test('when a body is the common hold shape, then quickHoldBody takes it; at each of the schema’s edges it leaves it to the schema', () => {
  const ids = Array.from({ length: 101 }, (_, i) => `seat-${i}`);
  expect(agrees({ seatIds: ['a'] })).toBe('quick');
  expect(agrees({ seatIds: ids.slice(0, 100) })).toBe('quick');
  expect(agrees({ seatIds: ['x'.repeat(200)] })).toBe('quick');
  for (const raw of [
    { seatIds: [] }, { seatIds: ids }, { seatIds: ['x'.repeat(201)] }, { seatIds: [''] }, { seatIds: ['a', 'b', 'a'] },
    { seatIds: [1] }, { seatIds: 'a' }, { seatIds: ['a'], quantity: 1 }, { seatIds: ['a'], note: 'x' }, { seatIds: ['a'], tier: 't' },
    JSON.parse('{"seatIds":["a"],"__proto__":{"x":1}}'), Object.assign(Object.create({ inherited: 1 }), { seatIds: ['a'] }),
    [{ seatIds: ['a'] }], null, 'seatIds', {},
  ]) {
    expect(agrees(raw)).toBe('schema');
  }
});

test('when quickHoldBody takes a body, then its list is a copy (the caller’s array is not handed on)', () => {
  const raw = { seatIds: ['a', 'b'] };
  const out = quickHoldBody(raw)!;
  expect(out.seatIds).toEqual(['a', 'b']);
  expect(out.seatIds).not.toBe(raw.seatIds);
});
