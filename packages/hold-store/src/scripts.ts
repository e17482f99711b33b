import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Writable } from 'node:stream';
import { isCluster, type RedisClient } from './redis-client';

/** Script file names follow BullMQ's habit: `<name>-<fixed key count>.lua`. */
const SCRIPT_FILES = {
  holdSeats: 'hold-seats-11.lua',
  holdBest: 'hold-best-12.lua',
  syncFreeSeats: 'sync-free-seats-4.lua',
  holdTickets: 'hold-tickets-11.lua',
  endHold: 'end-hold-12.lua',
  claimHold: 'claim-hold-11.lua',
  retakeHold: 'retake-hold-10.lua',
  extendHold: 'extend-hold-6.lua',
  primeEvent: 'prime-event-4.lua',
  readAvailability: 'read-availability-1.lua',
  idempotencyBegin: 'idempotency-begin-1.lua',
  idempotencyEnd: 'idempotency-end-1.lua',
  fixSeatKey: 'fix-seat-key-6.lua',
  repairTicketCounters: 'repair-ticket-counters-3.lua',
  repairBought: 'repair-bought-2.lua',
  countHoldRequest: 'count-hold-request-1.lua',
  waitlistJoin: 'waitlist-join-5.lua',
  waitlistLeave: 'waitlist-leave-4.lua',
  queueJoin: 'queue-join-7.lua',
  queueMe: 'queue-me-6.lua',
  queueEndPass: 'queue-end-pass-6.lua',
  queueAdmin: 'queue-admin-6.lua',
  queueTick: 'queue-tick-6.lua',
  cancelOrder: 'cancel-order-7.lua',
} as const;

export type ScriptName = keyof typeof SCRIPT_FILES;
type Reply = (string | number)[];
export type ScriptRunner = (keys: string[], args: (string | number)[]) => Promise<Reply>;

const LUA_DIR = path.join(__dirname, 'lua');
/** `--- @include "name"` on a line of its own stands for `lua/includes/<name>.lua` (BullMQ's habit too). */
const INCLUDE = /^--- @include "([\w-]+)"$/gm;

/** Every script file in the lua folder (the cluster test runs each one). */
export const SCRIPT_FILE_NAMES: readonly string[] = Object.values(SCRIPT_FILES);

/**
 * On a Redis Cluster the change feed is sharded pub/sub: a script's PUBLISH to
 * its event's channel becomes SPUBLISH, so the message stays on the event's
 * shard (the channel carries the event's hash tag, the slot of its keys).
 */
const PUBLISH = /redis\.call\('PUBLISH'/g;

const sources = new Map<string, string>();
export function scriptSource(name: ScriptName, sharded = false): string {
  const id = `${name}:${sharded}`;
  let s = sources.get(id);
  if (!s) {
    s = readFileSync(path.join(LUA_DIR, SCRIPT_FILES[name]), 'utf8').replace(INCLUDE, (_, include: string) =>
      readFileSync(path.join(LUA_DIR, 'includes', `${include}.lua`), 'utf8').trimEnd(),
    );
    if (sharded) s = s.replace(PUBLISH, "redis.call('SPUBLISH'");
    sources.set(id, s);
  }
  return s;
}

/**
 * One socket write per event-loop turn for the scripts sent in that turn: the
 * first script of a turn corks the client's socket and the turn's check phase
 * (setImmediate) uncorks it, so every script that requests handled in the same
 * turn sent goes out in one `writev` instead of one `write` system call each.
 * On loopback a write system call also does the receiving side's TCP work
 * (the largest item of a hold's CPU profile: docs/benchmarks.md, "Settings chosen by measurement"). Nothing waits
 * longer than the rest of its turn; commands and replies are unchanged and in order.
 * On a Redis Cluster (a connection per node, no one socket) it does nothing.
 */
export function writeCoalescer(redis: RedisClient): () => void {
  let corked = false;
  return () => {
    if (corked || redis.status !== 'ready') return;
    const stream = (redis as unknown as { stream?: Writable }).stream;
    if (!stream || typeof stream.cork !== 'function') return;
    stream.cork();
    corked = true;
    setImmediate(() => {
      corked = false;
      stream.uncork();
    });
  };
}

/**
 * Registers the scripts on an ioredis client. ioredis runs them with EVALSHA and
 * falls back to EVAL on NOSCRIPT, so a restarted Redis reloads them by itself.
 */
export function registerScripts(redis: RedisClient, coalesce = writeCoalescer(redis)): Record<ScriptName, ScriptRunner> {
  const runners = {} as Record<ScriptName, ScriptRunner>;
  for (const name of Object.keys(SCRIPT_FILES) as ScriptName[]) {
    const command = scriptCommand(name);
    if (!(command in redis)) redis.defineCommand(command, { lua: scriptSource(name, isCluster(redis)) });
    // The key and argument arrays are passed as they are: ioredis flattens a command's
    // arguments once anyway (Command's args.flat()), so spreading them here was a second copy.
    runners[name] = (keys, args) => {
      coalesce();
      return (redis as unknown as Record<string, (...a: unknown[]) => Promise<Reply>>)[command]!(keys.length, keys, args);
    };
  }
  return runners;
}

/** The ioredis command a script is registered as (also on pipelines). */
export function scriptCommand(name: ScriptName): string {
  return `holdfast_${name}`;
}

/** The script names, and the file each one runs. */
export function scriptFiles(): Record<ScriptName, string> {
  return { ...SCRIPT_FILES };
}
