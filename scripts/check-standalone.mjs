#!/usr/bin/env node
// The project stands alone: no tracked file may reach above the repository root
// with a relative path, nor name the developers' folder that sits beside it.
// Usage: node scripts/check-standalone.mjs [repository root]; exit 1 on a finding.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** A run of parent steps and the path after it, as written in code, docs or links. */
const RELATIVE = /(?:\.\.\/)+[\w.@-][\w./@-]*/g;
/** The folder beside a clone that only developers have. */
const SIBLING = /^(?:\.\.\/)+shared(?:\/|$)/;

export function findOutsideReferences(root) {
  const files = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' }).split('\0').filter(Boolean);
  const findings = [];
  for (const file of files) {
    const full = path.join(root, file);
    if (!existsSync(full)) continue;
    const buf = readFileSync(full);
    if (buf.includes(0)) continue; // binary
    const lines = buf.toString('utf8').split('\n');
    lines.forEach((line, i) => {
      for (const m of line.matchAll(RELATIVE)) {
        const ref = m[0].replace(/[.)]+$/, '');
        const target = path.resolve(path.dirname(full), ref);
        const outside = path.relative(root, target).startsWith('..');
        // A parent step then shared may name a folder of the repository itself (apps/web/src/shared);
        // when it names nothing in the repository, it means the folder beside it.
        const sibling = SIBLING.test(ref) && !existsSync(path.resolve(path.dirname(full), ref.replace(/shared(\/.*)?$/, 'shared')));
        if (outside || sibling) findings.push(`${file}:${i + 1}: ${ref}`);
      }
    });
  }
  return findings;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const root = path.resolve(process.argv[2] ?? '.');
  const findings = findOutsideReferences(root);
  if (findings.length) {
    console.error(`check-standalone: ${findings.length} reference(s) outside the repository:`);
    for (const f of findings) console.error(`  ${f}`);
    process.exit(1);
  }
  console.log('check-standalone: no tracked file refers outside the repository');
}
