import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Writable } from 'node:stream';
import { Command } from 'ioredis';
import { isCluster, type RedisClient } from './redis-client';

/** Script file names follow BullMQ's habit: `<name>-<fixed key count>.lua`. */
const SCRIPT_FILES = {
  holdSeats: 'hold-seats-11.lua',
  holdBest: 'hold-best-12.lua',
  syncFreeSeats: 'sync-free-seats-4.lua',
  holdTickets: 'hold-tickets-11.lua',
  endHold: 'end-hold-12.lua',
  giveBackHold: 'give-back-hold-12.lua',
  endConfirmedHolds: 'end-confirmed-holds-6.lua',
  claimHold: 'claim-hold-11.lua',
  readClaimHold: 'read-claim-hold-7.lua',
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
  waitlistJoin: 'waitlist-join-6.lua',
  waitlistLeave: 'waitlist-leave-5.lua',
  queueJoin: 'queue-join-7.lua',
  queueMe: 'queue-me-6.lua',
  queueEndPass: 'queue-end-pass-6.lua',
  queueExtendPass: 'queue-extend-pass-2.lua',
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

/** Replies as strings, as a command ioredis defines answers (shared: Command only reads its options). */
const UTF8 = { replyEncoding: 'utf8' } as const;

/** A script call's deadline timer that fires this late says the process itself was stalled, not Redis. */
const STALLED_MS = 20;
/** How long such a call still waits, with its socket read, before it fails after all. */
const STALL_GRACE_MS = 100;

/**
 * A script call whose deadline (the client's `commandTimeout`) does not count
 * this process's own stalls against Redis. ioredis fails a command from a timer
 * set when it is sent; after the event loop was blocked past the deadline (a
 * long GC pause, a starved CPU), that timer runs before the socket is read in
 * the same turn, and even before the command is written when the stall came
 * right after it was issued (writeCoalescer writes at the turn's end). So the
 * call failed (503) though Redis answered at once, and a hold script that ran
 * left its seats taken by a hold nobody was told of. A timer that fires late by
 * more than STALLED_MS gives the call STALL_GRACE_MS more, in which the command
 * is written and its answer read; a Redis that does not answer still fails it,
 * at most STALL_GRACE_MS later, with ioredis's own "Command timed out".
 */
class ScriptCommand extends Command {
  override setTimeout(ms: number): void {
    const own = this as unknown as { _commandTimeoutTimer?: NodeJS.Timeout };
    if (own._commandTimeoutTimer) return;
    const dueAt = Date.now() + ms;
    // Kept where ioredis keeps its timer, so an answer clears it (Command._clearTimers).
    own._commandTimeoutTimer = setTimeout(() => {
      if (this.isResolved) return;
      if (Date.now() - dueAt <= STALLED_MS) return this.reject(new Error('Command timed out'));
      own._commandTimeoutTimer = setTimeout(() => {
        if (!this.isResolved) this.reject(new Error('Command timed out'));
      }, STALL_GRACE_MS);
    }, ms);
  }
}

/** An argument list that is flat already: Command's `args.flat()` (about 4 µs for a hold's 30 arguments) hands it back as it is. */
function flatAlready<T>(this: T[]): T[] {
  return this;
}

/**
 * Registers the scripts on an ioredis client (pipelines run them by their
 * command name) and returns a runner per script. A runner sends EVALSHA as one
 * Command whose arguments it lays out flat itself, and on NOSCRIPT sends the
 * script's text with EVAL (which loads it again), so a restarted Redis reloads
 * them by itself, as ioredis's own script commands do. It skips what those
 * cost on every call: a rest array, a spread copy, Array.prototype.flat over
 * it (slow in V8), and a closure per command.
 */
export function registerScripts(redis: RedisClient, coalesce = writeCoalescer(redis)): Record<ScriptName, ScriptRunner> {
  const runners = {} as Record<ScriptName, ScriptRunner>;
  const sharded = isCluster(redis);
  for (const name of Object.keys(SCRIPT_FILES) as ScriptName[]) {
    const command = scriptCommand(name);
    const lua = scriptSource(name, sharded);
    if (!(command in redis)) redis.defineCommand(command, { lua });
    const sha = createHash('sha1').update(lua).digest('hex');
    const onNoScript = (keys: string[], args: (string | number)[]) => (err: Error): Promise<Reply> => {
      if (!String(err?.message).includes('NOSCRIPT')) throw err;
      return redis.sendCommand(new ScriptCommand('eval', [lua, keys.length, ...keys, ...args], UTF8)) as Promise<Reply>;
    };
    runners[name] = (keys, args) => {
      coalesce();
      const flat: (string | number)[] = [sha, keys.length];
      for (let i = 0; i < keys.length; i += 1) flat.push(keys[i]!);
      for (let i = 0; i < args.length; i += 1) flat.push(args[i]!);
      (flat as unknown as { flat: typeof flatAlready }).flat = flatAlready;
      return (redis.sendCommand(new ScriptCommand('evalsha', flat, UTF8)) as Promise<Reply>).catch(onNoScript(keys, args));
    };
  }
  return runners;
}

/**
 * Runs a script sent whole (EVAL), not by its SHA: for what undoes a call that
 * got no answer in time (a hold's give-back, an idempotency key's release). It
 * is sent while Redis does not answer, and may be rare enough that Redis does
 * not have it cached; by EVALSHA, a NOSCRIPT answer would come after the call
 * gave up, and nothing would send the script again.
 */
export function runWhole(redis: RedisClient, name: ScriptName, keys: string[], args: (string | number)[]): Promise<Reply> {
  return redis.sendCommand(new ScriptCommand('eval', [scriptSource(name, isCluster(redis)), keys.length, ...keys, ...args], UTF8)) as Promise<Reply>;
}

/** The ioredis command a script is registered as (also on pipelines). */
export function scriptCommand(name: ScriptName): string {
  return `holdfast_${name}`;
}

/** The script names, and the file each one runs. */
export function scriptFiles(): Record<ScriptName, string> {
  return { ...SCRIPT_FILES };
}
