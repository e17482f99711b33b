/**
 * Where the time goes in a V8 CPU profile (`node --cpu-prof`): self time by
 * function and by package, and inclusive time by package (a sample counts once
 * for every package on its stack).
 *
 * `npx tsx apps/bench/src/cpu-profile.summary.ts FILE.cpuprofile [TOP] [SKIP_MS] [UNTIL_MS]`
 *
 * SKIP_MS leaves out the first milliseconds of the profile (the process's
 * start-up: module loading and compilation), so the shares are of the load;
 * UNTIL_MS leaves out what comes after (one part of a run, e.g. the race lab's sale).
 */
import { readFile } from 'node:fs/promises';

import { markdownTable } from './report/markdown-table.format';

export interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

interface ProfileSummary {
  totalMs: number;
  idleMs: number;
  busyMs: number;
  selfByFunction: Array<{ name: string; where: string; area: string; ms: number; share: number }>;
  selfByArea: Array<{ area: string; ms: number; share: number }>;
  inclusiveByArea: Array<{ area: string; ms: number; share: number }>;
  /** Functions of the project itself (apps/*, packages/*) and what runs under them. */
  inclusiveByProjectFunction: Array<{ name: string; where: string; ms: number; share: number }>;
}

/** The package or part of the runtime a frame belongs to. */
export function areaOf(frame: CallFrame): string {
  const { url, functionName } = frame;
  if (!url) {
    if (functionName === '(idle)') return '(idle)';
    if (functionName === '(garbage collector)') return '(garbage collector)';
    if (functionName === '(program)') return '(program)';
    return '(native)';
  }
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0] === 'internal' ? url.slice(5).split('/').slice(0, 2).join('/') : url.slice(5)}`;
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const rest = url.slice(modules + '/node_modules/'.length).split('/');
    return rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1]}` : (rest[0] ?? url);
  }
  const workspace = /\/(apps|packages)\/([^/]+)\//.exec(url);
  if (workspace) return `${workspace[1]}/${workspace[2]}`;
  return url.replace(/^file:\/\//, '');
}

function summariseProfile(profile: CpuProfile, top = 25, skipMs = 0, untilMs = Infinity): ProfileSummary {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

  const selfMicros = new Map<number, number>();
  let at = 0;
  profile.samples.forEach((id, index) => {
    at += profile.timeDeltas[index] ?? 0;
    if (at < skipMs * 1000 || at >= untilMs * 1000) return;
    const delta = profile.timeDeltas[index + 1] ?? 0;
    selfMicros.set(id, (selfMicros.get(id) ?? 0) + delta);
  });
  const totalMicros = [...selfMicros.values()].reduce((a, b) => a + b, 0);

  const functions = new Map<string, { name: string; where: string; area: string; micros: number }>();
  const selfArea = new Map<string, number>();
  const inclusiveArea = new Map<string, number>();
  const inclusiveProject = new Map<string, { name: string; where: string; micros: number }>();
  let idle = 0;
  for (const [id, micros] of selfMicros) {
    const node = byId.get(id);
    if (!node) continue;
    const area = areaOf(node.callFrame);
    if (area === '(idle)') {
      idle += micros;
      continue;
    }
    const where = node.callFrame.url ? `${shortUrl(node.callFrame.url)}:${node.callFrame.lineNumber + 1}` : '';
    const key = `${node.callFrame.functionName}@${where}`;
    const entry = functions.get(key) ?? { name: node.callFrame.functionName || '(anonymous)', where, area, micros: 0 };
    entry.micros += micros;
    functions.set(key, entry);
    selfArea.set(area, (selfArea.get(area) ?? 0) + micros);
    const seen = new Set<string>();
    const seenFunctions = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)?.callFrame;
      if (!frame || frame.functionName === '(root)') continue;
      const frameArea = areaOf(frame);
      if (!seen.has(frameArea)) {
        seen.add(frameArea);
        inclusiveArea.set(frameArea, (inclusiveArea.get(frameArea) ?? 0) + micros);
      }
      if (/^(apps|packages)\//.test(frameArea) && frameArea !== 'apps/bench') {
        const frameWhere = `${shortUrl(frame.url)}:${frame.lineNumber + 1}`;
        const key = `${frame.functionName}@${frameWhere}`;
        if (!seenFunctions.has(key)) {
          seenFunctions.add(key);
          const entry = inclusiveProject.get(key) ?? { name: frame.functionName || '(anonymous)', where: frameWhere, micros: 0 };
          entry.micros += micros;
          inclusiveProject.set(key, entry);
        }
      }
    }
  }
  const busy = totalMicros - idle;
  const share = (micros: number) => Math.round((micros / Math.max(1, busy)) * 1000) / 10;
  const toMs = (micros: number) => Math.round(micros / 100) / 10;
  const sortDesc = <T extends { micros: number }>(list: T[]) => list.sort((a, b) => b.micros - a.micros);
  return {
    totalMs: toMs(totalMicros),
    idleMs: toMs(idle),
    busyMs: toMs(busy),
    selfByFunction: sortDesc([...functions.values()])
      .slice(0, top)
      .map((f) => ({ name: f.name, where: f.where, area: f.area, ms: toMs(f.micros), share: share(f.micros) })),
    selfByArea: sortDesc([...selfArea.entries()].map(([area, micros]) => ({ area, micros })))
      .slice(0, top)
      .map((a) => ({ area: a.area, ms: toMs(a.micros), share: share(a.micros) })),
    inclusiveByArea: sortDesc([...inclusiveArea.entries()].map(([area, micros]) => ({ area, micros })))
      .slice(0, top)
      .map((a) => ({ area: a.area, ms: toMs(a.micros), share: share(a.micros) })),
    inclusiveByProjectFunction: sortDesc([...inclusiveProject.values()])
      .slice(0, top)
      .map((f) => ({ name: f.name, where: f.where, ms: toMs(f.micros), share: share(f.micros) })),
  };
}

function shortUrl(url: string): string {
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) return url.slice(modules + '/node_modules/'.length);
  const workspace = /\/((apps|packages)\/.*)$/.exec(url);
  return workspace?.[1] ?? url.replace(/^file:\/\//, '');
}

function renderProfileSummary(summary: ProfileSummary): string {
  return [
    `profile: ${summary.totalMs} ms sampled, ${summary.busyMs} ms busy, ${summary.idleMs} ms idle (shares are of busy time)`,
    '',
    'Self time by package / runtime area:',
    '',
    markdownTable(['area', 'self ms', '% busy'], summary.selfByArea.map((a) => [a.area, a.ms, a.share])),
    '',
    'Inclusive time by package (a sample counts for every package on its stack):',
    '',
    markdownTable(['area', 'inclusive ms', '% busy'], summary.inclusiveByArea.map((a) => [a.area, a.ms, a.share])),
    '',
    'The project\'s own functions, inclusive (what runs under them, callbacks excluded):',
    '',
    markdownTable(['function', 'where', 'inclusive ms', '% busy'], summary.inclusiveByProjectFunction.map((f) => [f.name, f.where, f.ms, f.share])),
    '',
    'Top functions by self time:',
    '',
    markdownTable(['function', 'where', 'area', 'self ms', '% busy'], summary.selfByFunction.map((f) => [f.name, f.where, f.area, f.ms, f.share])),
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  const [file, top, skipMs, untilMs] = process.argv.slice(2);
  if (!file) throw new Error('usage: cpu-profile.summary.ts FILE.cpuprofile [TOP] [SKIP_MS] [UNTIL_MS]');
  const profile = JSON.parse(await readFile(file, 'utf8')) as CpuProfile;
  process.stdout.write(renderProfileSummary(summariseProfile(profile, Number(top ?? 25), Number(skipMs ?? 0), Number(untilMs ?? Infinity))));
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
