import { readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..', '..', '..');

/**
 * The node flags `npm start` gives the server (the root package.json's start
 * script, whose last command runs `node <flags> apps/server/dist/main.js`, or
 * `tsx <flags> ...`), so the bench runs holdfast's API with the flags users run it
 * with. Read from the script itself: one place says them.
 */
export function startNodeFlags(packageJsonPath = path.join(ROOT, 'package.json')): string[] {
  const pkg = JSON.parse(readFileSync(packageJsonPath, 'utf8')) as { scripts?: { start?: string } };
  const script = pkg.scripts?.start ?? '';
  // The command that runs the server: the last of `a && b && exec node ...`.
  const words = (script.split('&&').pop() ?? '').trim().split(/\s+/);
  if (words[0] === 'exec') words.shift();
  if (words[0] !== 'node' && words[0] !== 'tsx') throw new Error(`the start script does not run node or tsx: ${script || '(none)'}`);
  const flags: string[] = [];
  for (const word of words.slice(1)) {
    if (!word.startsWith('--')) break;
    flags.push(word);
  }
  return flags;
}
