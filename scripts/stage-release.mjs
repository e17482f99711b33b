#!/usr/bin/env node
// `node scripts/stage-release.mjs <dir>`: lays out what the production image
// holds (the Dockerfile's final stage copies it), after `npm run build`:
//
//   <dir>/deps/  package.json, package-lock.json and every workspace's
//                package.json: all `npm ci --omit=dev` needs
//   <dir>/app/   every workspace's dist/ (the compiled apps, the web app's
//                pages), the JavaScript `main` of a workspace written in
//                JavaScript (apps/web/index.js), prisma/schema.prisma,
//                prisma/migrations, and prisma.config.mjs (prisma.config.ts
//                compiled: `prisma migrate deploy` at start reads it)
//
// No TypeScript source, test or dev dependency. Workspaces are found from the
// root package.json's `workspaces`, so a new one is staged without a change here.
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const out = process.argv[2];
if (!out) {
  console.error('usage: node scripts/stage-release.mjs <dir>');
  process.exit(2);
}
const deps = path.resolve(out, 'deps');
const app = path.resolve(out, 'app');
rmSync(deps, { recursive: true, force: true });
rmSync(app, { recursive: true, force: true });

const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));
const copy = (rel, to) => {
  mkdirSync(path.dirname(path.join(to, rel)), { recursive: true });
  cpSync(path.join(root, rel), path.join(to, rel), { recursive: true });
};

/** The workspaces' folders, relative to the root (`apps/*` style patterns and plain folders). */
function workspaces() {
  const found = [];
  for (const pattern of readJson(path.join(root, 'package.json')).workspaces ?? []) {
    const dirs = pattern.endsWith('/*')
      ? readdirSync(path.join(root, pattern.slice(0, -2)), { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => path.join(pattern.slice(0, -2), d.name))
      : [pattern];
    found.push(...dirs.filter((d) => existsSync(path.join(root, d, 'package.json'))));
  }
  return found;
}

copy('package.json', deps);
copy('package-lock.json', deps);
const missing = [];
for (const ws of workspaces()) {
  copy(path.join(ws, 'package.json'), deps);
  const pkg = readJson(path.join(root, ws, 'package.json'));
  if (pkg.scripts?.build) {
    if (!existsSync(path.join(root, ws, 'dist'))) missing.push(ws);
    else copy(path.join(ws, 'dist'), app);
  }
  if (pkg.main && /\.[cm]?js$/.test(pkg.main)) {
    copy(path.join(ws, pkg.main), app);
  }
}
if (missing.length) {
  console.error(`stage-release: not built: ${missing.join(', ')} (run \`npm run build\` first)`);
  process.exit(1);
}

copy('prisma/schema.prisma', app);
copy('prisma/migrations', app);
await build({
  entryPoints: [path.join(root, 'prisma.config.ts')],
  outfile: path.join(app, 'prisma.config.mjs'),
  bundle: true,
  packages: 'external',
  platform: 'node',
  target: 'node20',
  format: 'esm',
  logLevel: 'warning',
});
console.log(`stage-release: ${deps} and ${app}`);
