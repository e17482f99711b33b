// The API's own HS256 check (jwt-hs256.ts) against jsonwebtoken, the library it
// replaced on the request path: every token, crafted or mutated, gets the same verdict and claims.
import { createHmac, createSecretKey, randomBytes } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { verifyHs256 } from '../src/middleware/jwt-hs256';

const SECRET = 'a-test-secret-of-the-api-0123456789';
const key = createSecretKey(Buffer.from(SECRET, 'utf8'));
const NOW = 1_800_000_000;

const b64 = (text: string | Buffer) => Buffer.from(text).toString('base64url');
const json = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

/** A token from raw parts: the header and payload as given (objects are JSON-encoded), signed with `secret` unless a signature is given. */
function craft(header: unknown, payload: unknown, options: { secret?: string | Buffer; signature?: string; algorithm?: string } = {}): string {
  const input = `${b64(json(header))}.${b64(json(payload))}`;
  const hmac = createHmac(options.algorithm ?? 'sha256', options.secret ?? SECRET).update(input).digest('base64url');
  return `${input}.${options.signature ?? hmac}`;
}

/** jsonwebtoken's verdict as the API used it (it read `sub` and `role` from an object): the claims when it returned an object, else null. */
function libraryVerdict(token: string): unknown {
  try {
    const claims: unknown = jwt.verify(token, key, { algorithms: ['HS256'], clockTimestamp: NOW });
    return claims !== null && typeof claims === 'object' ? claims : null;
  } catch {
    return null;
  }
}

function expectSameVerdict(token: string): boolean {
  const ours = verifyHs256(token, key, NOW);
  const theirs = libraryVerdict(token);
  try {
    expect(ours).toEqual(theirs);
  } catch (err) {
    throw new Error(`token ${token}: ours ${JSON.stringify(ours)}, jsonwebtoken ${JSON.stringify(theirs)}\n${(err as Error).message}`);
  }
  return ours !== null;
}

const HS = { alg: 'HS256', typ: 'JWT' };
const claims = { sub: 'cust-1', role: 'customer', iat: NOW - 10, exp: NOW + 3600 };

const CASES: Array<[string, string, boolean]> = [
  ['a token signed by jsonwebtoken', jwt.sign({ sub: 'cust-1', role: 'customer', iat: NOW, exp: NOW + 3600 }, SECRET, { algorithm: 'HS256' }), true],
  ['a valid token', craft(HS, claims), true],
  ['no typ in the header', craft({ alg: 'HS256' }, claims), true],
  ['another typ, a kid', craft({ alg: 'HS256', typ: 'at+jwt', kid: 'k1' }, claims), true],
  ['no exp', craft(HS, { sub: 'x', role: 'admin' }), true],
  ['exp one second ahead', craft(HS, { ...claims, exp: NOW + 1 }), true],
  ['exp now', craft(HS, { ...claims, exp: NOW }), false],
  ['exp passed', craft(HS, { ...claims, exp: NOW - 1 }), false],
  ['exp as a string', craft(HS, { ...claims, exp: String(NOW + 3600) }), false],
  ['exp null', craft(HS, { ...claims, exp: null }), false],
  ['nbf now', craft(HS, { ...claims, nbf: NOW }), true],
  ['nbf ahead', craft(HS, { ...claims, nbf: NOW + 1 }), false],
  ['nbf as a string', craft(HS, { ...claims, nbf: String(NOW) }), false],
  ['fractional exp ahead', craft(HS, { ...claims, exp: NOW + 0.5 }), true],
  ['another secret', craft(HS, claims, { secret: 'another-secret' }), false],
  ['the secret with a byte more', craft(HS, claims, { secret: `${SECRET}x` }), false],
  ['alg none, no signature', `${b64(json({ alg: 'none' }))}.${b64(json(claims))}.`, false],
  ['alg none with our signature', craft({ alg: 'none' }, claims), false],
  ['alg HS512', craft({ alg: 'HS512', typ: 'JWT' }, claims, { algorithm: 'sha512' }), false],
  ['alg hs256 in lower case', craft({ alg: 'hs256' }, claims), false],
  ['alg RS256 with an HMAC', craft({ alg: 'RS256' }, claims), false],
  ['no alg', craft({ typ: 'JWT' }, claims), false],
  ['a header that is not JSON', craft('{alg:HS256}', claims), false],
  ['a header that is null', craft('null', claims), false],
  ['a header that is 0', craft('0', claims), false],
  ['a header that is an array', craft('["HS256"]', claims), false],
  ['a header with a BOM', craft(`\ufeff${JSON.stringify(HS)}`, claims), false],
  ['a header with whitespace', craft(` { "alg" : "HS256" } `, claims), true],
  ['a payload that is not JSON, typ JWT', craft(HS, '{sub:1}'), false],
  ['a payload that is not JSON, no typ', craft({ alg: 'HS256' }, 'hello'), false],
  ['a payload that is a JSON string', craft({ alg: 'HS256' }, '"hello"'), false],
  ['a payload that is a number, typ JWT', craft(HS, '42'), false],
  ['a payload that is null', craft(HS, 'null'), false],
  ['a payload that is an empty object', craft(HS, {}), true],
  ['a payload that is an array', craft(HS, '[1,2]'), true],
  ['a payload with non-ASCII text', craft(HS, { ...claims, sub: 'zoë-ß-東京' }), true],
  ['a payload that is not UTF-8', `${b64(json(HS))}.${b64(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]))}.${createHmac('sha256', SECRET).update(`${b64(json(HS))}.${b64(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]))}`).digest('base64url')}`, true],
  ['a signature in base64 with padding', craft(HS, claims, { signature: `${createHmac('sha256', SECRET).update(`${b64(json(HS))}.${b64(json(claims))}`).digest('base64')}` }), false],
  ['a signature cut short', craft(HS, claims).slice(0, -1), false],
  ['a signature one character longer', `${craft(HS, claims)}A`, false],
  ['an empty signature', craft(HS, claims, { signature: '' }), false],
  ['four parts', `${craft(HS, claims)}.x`, false],
  ['two parts', craft(HS, claims).split('.').slice(0, 2).join('.'), false],
  ['an empty header part', `.${craft(HS, claims).split('.').slice(1).join('.')}`, false],
  ['a character outside base64url', craft(HS, claims).replace('.', '+.'), false],
  ['the empty string', '', false],
];

describe('HS256 tokens checked like jsonwebtoken', () => {
  test.each(CASES)('when the token has %s, then it gets jsonwebtoken\'s verdict', (_name, token, accepted) => {
    expect(expectSameVerdict(token)).toBe(accepted);
  });

  test('when thousands of tokens are mutated at random, then every one gets jsonwebtoken\'s verdict and claims', () => {
    const seeds = CASES.map(([, token]) => token).filter(Boolean);
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/ ';
    let accepted = 0;
    let refused = 0;
    for (let i = 0; i < 4000; i += 1) {
      let token = seeds[i % seeds.length]!;
      const edits = 1 + (i % 3);
      for (let e = 0; e < edits; e += 1) {
        const at = randomBytes(2).readUInt16BE() % (token.length + 1);
        const char = alphabet[randomBytes(1)[0]! % alphabet.length]!;
        const kind = randomBytes(1)[0]! % 3;
        token = kind === 0 ? token.slice(0, at) + char + token.slice(at + 1) : kind === 1 ? token.slice(0, at) + char + token.slice(at) : token.slice(0, at) + token.slice(at + 1);
      }
      if (expectSameVerdict(token)) accepted += 1;
      else refused += 1;
    }
    // Mutations mostly break the signature; some land in places neither checks (base64 tail bits).
    expect(refused).toBeGreaterThan(3000);
    expect(accepted + refused).toBe(4000);
  });
});
