#!/usr/bin/env node
// The compiled build of an app: this script, run from an app's folder (its
// `build` script), bundles its `src/main.ts` with esbuild into `dist/main.js`, which
// `node` runs directly (no tsx, no TypeScript at run time).
//
// - Workspace packages written in TypeScript (`main` ends in `.ts`) are
//   inlined; a workspace whose `main` is plain JavaScript (`@holdfast/web`,
//   which finds its built pages next to itself) stays a `require` resolved at
//   run time, as does every package from the registry: node_modules is not
//   bundled, so OpenTelemetry-style `require` hooks, BullMQ's and Prisma's
//   files on disk and pino's transports work as they do under tsx. A new
//   workspace needs nothing here.
// - Code that finds files from `__dirname`: `dist/` is at the same depth as
//   `src/` (three folders up from either is the repository root), and a workspace that reads a folder next to its source at run time
//   names it in its package.json (`"holdfast": {"runtimeDirs": ["src/lua"]}`):
//   it is copied to `dist/<its name>`, the same `path.join(__dirname, 'lua')`.
// - Each package the bundle requires must resolve from `dist/` to the same
//   copy it resolves to from the source that imports it (no nested
//   node_modules copy left behind), else the build stops saying which.
import { cpSync, existsSync, mkdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { build } from 'esbuild';

const appDir = process.cwd();
const entry = path.join(appDir, 'src', 'main.ts');
const outDir = path.join(appDir, 'dist');
if (!existsSync(entry)) {
  console.error(`bundle: no ${path.relative(process.cwd(), entry)} in ${appDir}`);
  process.exit(1);
}

const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));

/** The folder of the package `name` as node finds it from `fromDir` (walking up node_modules), or null. */
function packageDir(name, fromDir) {
  for (let dir = fromDir; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name);
    if (existsSync(path.join(candidate, 'package.json'))) return realpathSync(candidate);
    if (path.dirname(dir) === dir) return null;
  }
}

/** `@scope/name/sub` -> `@scope/name`; `name/sub` -> `name`. */
const packageName = (spec) => spec.split('/').slice(0, spec.startsWith('@') ? 2 : 1).join('/');

const external = new Map(); // package name -> folder it resolves to from dist/
const inlined = new Map(); // workspace name -> its folder

const workspacesPlugin = {
  name: 'holdfast-workspaces',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('node:') || builtinModules.includes(packageName(args.path))) return { external: true };
      const name = packageName(args.path);
      const dir = packageDir(name, args.resolveDir);
      if (dir === null) return undefined; // a missing package: esbuild says which
      const pkg = readJson(path.join(dir, 'package.json'));
      const isWorkspace = !dir.split(path.sep).includes('node_modules');
      if (isWorkspace && /\.tsx?$/.test(pkg.main ?? '')) {
        inlined.set(name, dir);
        return undefined; // esbuild resolves it through the symlink to its TypeScript source
      }
      const fromDist = packageDir(name, outDir);
      if (fromDist !== dir) {
        throw new Error(`${name} imported from ${path.relative(appDir, args.resolveDir)} is ${dir}, but from dist/ it would be ${fromDist ?? 'missing'}`);
      }
      external.set(name, dir);
      return { external: true };
    });
  },
};

rmSync(outDir, { recursive: true, force: true });
await build({
  entryPoints: { main: entry },
  outdir: outDir,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: 'linked',
  keepNames: true,
  logLevel: 'warning',
  plugins: [workspacesPlugin],
});

// Folders the inlined workspaces read next to their source at run time.
const copied = new Map();
for (const [name, dir] of [...inlined, ['(the app)', appDir]]) {
  const pkgFile = path.join(dir, 'package.json');
  for (const rel of readJson(pkgFile).holdfast?.runtimeDirs ?? []) {
    const base = path.basename(rel);
    if (copied.has(base)) throw new Error(`${name} and ${copied.get(base)} both need dist/${base}`);
    copied.set(base, name);
    mkdirSync(outDir, { recursive: true });
    cpSync(path.join(dir, rel), path.join(outDir, base), { recursive: true });
  }
}

const rel = (p) => path.relative(process.cwd(), p) || '.';
console.log(`bundle: ${rel(path.join(outDir, 'main.js'))} (inlined ${inlined.size} workspaces, ${external.size} packages required at run time${copied.size ? `, copied ${[...copied.keys()].join(', ')}` : ''})`);
