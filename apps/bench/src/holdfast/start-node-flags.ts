import { readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..', '..', '..');

/**
 * The node flags `npm start` gives the server (the root package.json's start
 * script: `tsx <flags> apps/server/src/main.ts`), so the bench runs holdfast's
 * API as users run it. Read from the script itself: one place says them.
 */
export function startNodeFlags(packageJsonPath = path.join(ROOT, 'package.json')): string[] {
  const pkg = JSON.parse(readFileSync(packageJsonPath, 'utf8')) as { scripts?: { start?: string } };
  const words = (pkg.scripts?.start ?? '').trim().split(/\s+/);
  if (words[0] !== 'tsx') throw new Error(`the start script does not run tsx: ${pkg.scripts?.start ?? '(none)'}`);
  const flags: string[] = [];
  for (const word of words.slice(1)) {
    if (!word.startsWith('--')) break;
    flags.push(word);
  }
  return flags;
}
