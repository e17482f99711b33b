import path from 'node:path';

import { startNodeFlags } from '../holdfast/start-node-flags';
import { launchChildServer, type ChildServer } from './child-server.launcher';

/** The HTTP baselines of the hold path, each answering a POST with one `SET NX EX` on Redis. */
export const BASELINE_SERVERS = {
  /** Express 5, its JSON body parser, one SET (minimal-express.server.ts). */
  express: 'minimal-express.server.ts',
  /** node:http alone, one SET (bare-node.server.ts). */
  bareNode: 'bare-node.server.ts',
} as const;

export type BaselineServer = keyof typeof BASELINE_SERVERS;

/**
 * The node flags every baseline process runs with: the same as holdfast's API
 * (those `npm start` gives it, start-node-flags.ts), so no side gains from its flags alone.
 */
export function baselineNodeFlags(): string[] {
  return startNodeFlags();
}

/** Starts a baseline server as a child process, with holdfast's API's node flags (and `extraNodeArgs`, e.g. a CPU profile's). */
export function launchBaseline(kind: BaselineServer, env: { BENCH_REDIS_URL: string; BENCH_KEY_PREFIX: string }, extraNodeArgs: string[] = []): Promise<ChildServer> {
  return launchChildServer({ entry: path.join(__dirname, BASELINE_SERVERS[kind]), env, nodeArgs: [...baselineNodeFlags(), ...extraNodeArgs] });
}
