import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..');
const CHECK = path.join(ROOT, 'scripts/check-standalone.mjs');
/** A parent step, spelled so that this file itself names nothing outside the repository. */
const UP = ['..', ''].join('/');
const check = (root: string) => spawnSync(process.execPath, [CHECK, root], { encoding: 'utf8' });

test('when the repository is checked, then no tracked file refers above its root or to the folder beside it', () => {
  const r = check(ROOT);
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
});

test('when a tracked file names the folder beside the clone or a path above the root, then the check fails naming each', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'standalone-'));
  try {
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd: dir });
    git('init', '-q');
    mkdirSync(path.join(dir, 'app/src/shared'), { recursive: true });
    mkdirSync(path.join(dir, 'app/src/pages'), { recursive: true });
    mkdirSync(path.join(dir, 'app/test'), { recursive: true });
    writeFileSync(path.join(dir, 'app/src/shared/api.ts'), 'export const a = 1;\n');
    // Fine: a folder of the repository that happens to be called shared.
    writeFileSync(path.join(dir, 'app/src/pages/page.ts'), `import { a } from '${UP}shared/api';\n`);
    writeFileSync(path.join(dir, 'README.md'), `See [the contract](${UP}shared/api-contract.md).\n`);
    writeFileSync(path.join(dir, 'app/test/x.test.ts'), `const f = path.resolve(ROOT, '${UP}shared/api-contract.md');\nconst g = '${UP}${UP}${UP}etc/passwd';\n`);
    git('add', '-A');
    const r = check(dir);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`README.md:1: ${UP}shared/api-contract.md`);
    expect(r.stderr).toContain(`app/test/x.test.ts:1: ${UP}shared/api-contract.md`);
    expect(r.stderr).toContain(`app/test/x.test.ts:2: ${UP}${UP}${UP}etc/passwd`);
    expect(r.stderr).not.toContain('page.ts');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
