// The verifier remembers the `alg` of the token headers it has decoded (a signer's tokens all
// share one header text); every token is still checked on its own, whatever came before it.
import jwt from 'jsonwebtoken';
import { AppError } from '@holdfast/domain';
import { TokenVerifier } from '../src/middleware/token-verifier';

const secret = 'a-test-secret-that-is-long-enough-for-hs256';
const auth = { issuer: null, roleClaim: 'role', roleMap: {} };
const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
const hs256 = (claims: object, key = secret) => `Bearer ${jwt.sign(claims, key, { algorithm: 'HS256' })}`;
const inAMinute = () => Math.floor(Date.now() / 1000) + 60;

async function reasonOf(verifier: TokenVerifier, header: string): Promise<string> {
  try {
    const principal = await verifier.verify(header);
    return `ok ${principal.role} ${principal.id}`;
  } catch (err) {
    return err instanceof AppError ? String((err.details as { reason?: string })?.reason) : String(err);
  }
}

test('when many tokens share one header, then each is still checked on its own: signature, expiry, claims and role', async () => {
  const verifier = new TokenVerifier({ jwtSecret: secret, auth });
  for (let i = 0; i < 5; i += 1) expect(await reasonOf(verifier, hs256({ sub: `c${i}`, role: 'customer', exp: inAMinute() }))).toBe(`ok customer c${i}`);
  const sameHeader = [
    hs256({ sub: 'x', role: 'admin', exp: inAMinute() }, 'another-secret-that-is-long-enough-too'),
    hs256({ sub: 'x', role: 'admin', exp: Math.floor(Date.now() / 1000) - 60 }),
    hs256({ role: 'admin', exp: inAMinute() }),
    hs256({ sub: 'x', role: 'root', exp: inAMinute() }),
  ];
  expect(new Set(sameHeader.map((h) => h.split('.')[0])).size).toBe(1);
  const reasons = [];
  for (const header of sameHeader) reasons.push(await reasonOf(verifier, header));
  expect(reasons).toEqual(['bad_signature', 'token_expired', 'invalid_claims', 'unknown_role']);
});

test('when HS256 headers were remembered, then a token with another header is refused for its own algorithm, and one that does not decode each time', async () => {
  const verifier = new TokenVerifier({ jwtSecret: secret, auth });
  const good = hs256({ sub: 'c', role: 'customer', exp: inAMinute() });
  expect(await reasonOf(verifier, good)).toBe('ok customer c');
  const claims = b64({ sub: 'x', role: 'admin', exp: inAMinute() });
  const none = `Bearer ${b64({ alg: 'none', typ: 'JWT' })}.${claims}.`;
  const hs512 = `Bearer ${jwt.sign({ sub: 'x', role: 'admin' }, secret, { algorithm: 'HS512' })}`;
  const garbled = `Bearer ${b64('not an object')}.${claims}.sig`;
  for (let round = 0; round < 2; round += 1) {
    expect([await reasonOf(verifier, none), await reasonOf(verifier, hs512), await reasonOf(verifier, garbled)])
      .toEqual(['algorithm_not_allowed', 'algorithm_not_allowed', 'malformed']);
  }
  // The remembered header still serves a new token of the signer.
  expect(await reasonOf(verifier, hs256({ sub: 'd', role: 'customer', exp: inAMinute() }))).toBe('ok customer d');
});
