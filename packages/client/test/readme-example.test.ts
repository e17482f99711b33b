import { readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');

test('when the README shows the storefront example, then it is the example file the package type-checks, line for line', () => {
  const example = readFileSync(path.join(__dirname, '../examples/storefront.ts'), 'utf8');
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]);
  expect(blocks).toContain(example);
  expect(example.split('\n').length).toBeLessThanOrEqual(22);
  expect(example).toMatch(/\.hold\(/);
  expect(example).toMatch(/\.confirm\(/);
});
