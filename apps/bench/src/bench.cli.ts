/**
 * `npm run bench [-- --quick] [--out FILE] [--only race,hold,growth,confirm,best,cluster,persist,soak,instrument,webhooks,queue] [--profile-api DIR] [--api-event-loop] [--tracing off|on|both] [--race-pairs N]`
 *
 * Prints Markdown tables on stdout (progress on stderr); with --out, writes the
 * whole report as JSON to FILE and an SVG chart next to it (same basename, .svg).
 * `--tracing on`: the API exports traces (to a loopback receiver that discards
 * them); `both`: the sections run with tracing off, then on, and a last table
 * compares the two (with --out, FILE gets `.tracing-off` / `.tracing-on` before its extension).
 * `--api-event-loop`: the API child measures its event-loop delay (perf_hooks, a 1 ms timer: a
 * measurement's own cost, off by default) and its GC pauses over each holdfast hold round at the
 * section's concurrency, and prints them to stderr after the round (where the hold path's tail comes from).
 * `--race-pairs N`: the race lab's interleaved SKIP LOCKED / holdfast pairs (default: the plan's, 5 quick, 9 full).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

import { benchPlan } from './bench-plan.config';
import { ALL_SECTIONS, type Section } from './bench-report.types';
import { runBench } from './bench.runner';
import { benchJson } from './report/bench-json.format';
import { renderMarkdown, renderSvg } from './report/bench-report.format';
import { renderTracingCost } from './report/tracing-cost.format';

type Tracing = 'off' | 'on' | 'both';

interface CliArgs {
  quick: boolean;
  out: string | null;
  sections: Section[];
  /** Directory for a V8 CPU profile of the holdfast API child (node --cpu-prof). */
  profileApi: string | null;
  /** The API child reports its event-loop delay and GC pauses over each holdfast hold round (stderr). */
  apiEventLoop: boolean;
  tracing: Tracing;
  /** The race lab's pairs of SKIP LOCKED and holdfast sales, over the plan's. */
  racePairs: number | null;
}

function parseArgs(argv: string[]): CliArgs {
  const args: CliArgs = { quick: false, out: null, sections: [...ALL_SECTIONS], profileApi: null, apiEventLoop: false, tracing: 'off', racePairs: null };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    if (arg === '--quick') args.quick = true;
    else if (arg === '--out') args.out = requireValue(argv[(i += 1)], '--out');
    else if (arg?.startsWith('--out=')) args.out = arg.slice('--out='.length);
    else if (arg === '--only') args.sections = parseSections(requireValue(argv[(i += 1)], '--only'));
    else if (arg?.startsWith('--only=')) args.sections = parseSections(arg.slice('--only='.length));
    else if (arg === '--profile-api') args.profileApi = requireValue(argv[(i += 1)], '--profile-api');
    else if (arg === '--api-event-loop') args.apiEventLoop = true;
    else if (arg === '--tracing') args.tracing = parseTracing(requireValue(argv[(i += 1)], '--tracing'));
    else if (arg?.startsWith('--tracing=')) args.tracing = parseTracing(arg.slice('--tracing='.length));
    else if (arg === '--race-pairs') args.racePairs = parsePairs(requireValue(argv[(i += 1)], '--race-pairs'));
    else if (arg?.startsWith('--race-pairs=')) args.racePairs = parsePairs(arg.slice('--race-pairs='.length));
    else if (arg === '--help' || arg === '-h') {
      process.stdout.write('usage: npm run bench -- [--quick] [--out FILE.json] [--only race,hold,growth,confirm,best,cluster,persist,soak,instrument,webhooks,queue] [--profile-api DIR] [--api-event-loop] [--tracing off|on|both] [--race-pairs N]\n');
      process.exit(0);
    } else throw new Error(`unknown argument: ${arg}`);
  }
  return args;
}

function requireValue(value: string | undefined, flag: string): string {
  if (!value || value.startsWith('--')) throw new Error(`${flag} needs a value`);
  return value;
}

function parseSections(list: string): Section[] {
  const sections = list.split(',').map((name) => name.trim()).filter(Boolean);
  for (const section of sections) {
    if (!ALL_SECTIONS.includes(section as Section)) throw new Error(`unknown section "${section}" (known: ${ALL_SECTIONS.join(', ')})`);
  }
  return sections as Section[];
}

function parsePairs(value: string): number {
  const pairs = Number(value);
  if (!Number.isInteger(pairs) || pairs < 1) throw new Error(`--race-pairs takes a whole number ≥ 1, not "${value}"`);
  return pairs;
}

function parseTracing(value: string): Tracing {
  if (value === 'off' || value === 'on' || value === 'both') return value;
  throw new Error(`--tracing takes off, on or both, not "${value}"`);
}

/** FILE.json → FILE.tracing-on.json (with --tracing both). */
function outPathFor(out: string, tracing: 'off' | 'on' | null): string {
  if (!tracing) return out;
  const parsed = path.parse(out);
  return path.join(parsed.dir, `${parsed.name}.tracing-${tracing}${parsed.ext}`);
}

function svgPathFor(out: string): string {
  const parsed = path.parse(out);
  return path.join(parsed.dir, `${parsed.name}.svg`);
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const started = Date.now();
  const runs: ('off' | 'on')[] = args.tracing === 'both' ? ['off', 'on'] : [args.tracing];
  const reports = [];
  const plan = benchPlan(args.quick);
  if (args.racePairs !== null) plan.raceLab.pairs = args.racePairs;
  for (const tracing of runs) {
    const report = await runBench({
      plan,
      sections: args.sections,
      apiNodeArgs: args.profileApi
        ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(process.env.INIT_CWD ?? process.cwd(), args.profileApi)}`]
        : undefined,
      apiEventLoop: args.apiEventLoop,
      tracing,
      log: (line) => process.stderr.write(`[bench +${((Date.now() - started) / 1000).toFixed(1)}s] ${runs.length > 1 ? `tracing ${tracing}: ` : ''}${line}\n`),
    });
    reports.push(report);
    process.stdout.write(renderMarkdown(report));
    if (args.out) {
      const out = outPathFor(path.resolve(process.env.INIT_CWD ?? process.cwd(), args.out), runs.length > 1 ? tracing : null);
      await mkdir(path.dirname(out), { recursive: true });
      await writeFile(out, `${JSON.stringify(benchJson(report), null, 2)}\n`);
      await writeFile(svgPathFor(out), renderSvg(report));
      process.stderr.write(`[bench] wrote ${out} and ${svgPathFor(out)}\n`);
    }
  }
  if (reports.length === 2) process.stdout.write(`\n${renderTracingCost(reports[0]!, reports[1]!)}`);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`[bench] failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
