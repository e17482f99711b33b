// Group commit for confirms: confirms that arrive while a batch is running wait
// for it and then go together, in ONE statement (one transaction, one COMMIT,
// one WAL flush); a confirm that finds nothing running goes at once, unless
// confirms admitted with it are still taking their claims (then it goes with
// them, 2 ms at most later), so a lone confirm never waits for company. The
// backlog is bounded: past maxWaiting waiting confirms, a confirm is refused at
// once with 503 OVERLOADED. A batch whose answer never came is not a failure
// until PostgreSQL says what committed (recover()).
import {
  confirmBatch, ConfirmOutcomeUnknown, DatabaseUnavailable, settleConfirmBatch, type ConfirmBatchItem, type ConfirmBatchResult, type Db,
} from '@holdfast/db';
import { withSpan } from '@holdfast/telemetry';
import { errors } from './errors';

export interface ConfirmBatchSettings {
  /** Most confirms in one batch (N). 1 turns batching off: one transaction per confirm. */
  maxBatch: number;
  /** Confirms waiting for a batch past which a new confirm is refused with 503 OVERLOADED. */
  maxWaiting: number;
  /**
   * After a batch, how long the next one may wait for more company while it has
   * fewer than maxBatch confirms (0: it goes at once; confirms gather while the
   * previous batch runs). A confirm on an idle server never waits.
   */
  maxWaitMs: number;
  /**
   * Batches running at once (each on its own connection; CONFIRM_BATCH_IN_FLIGHT). The function
   * takes the rows every batch shares (a GA ticket type's row, the order numbers) last, so a
   * second batch does its own rows while the first holds those until its COMMIT. On the bench's
   * 2-core machine two in flight made smaller batches: more confirms a second in the confirm
   * section, not in the race lab, so one stays the default (docs/benchmarks.md,
   * "Settings chosen by measurement").
   */
  inFlight: number;
}

/** Chosen from measurements (docs/benchmarks.md, "Settings chosen by measurement"). */
export const DEFAULT_CONFIRM_BATCH: ConfirmBatchSettings = { maxBatch: 32, maxWaiting: 2000, maxWaitMs: 0, inFlight: 1 };

/** The settings, with the defaults for those not given. */
export function confirmBatchSettings(given: Partial<ConfirmBatchSettings> = {}): ConfirmBatchSettings {
  const out = { ...DEFAULT_CONFIRM_BATCH };
  for (const key of Object.keys(out) as (keyof ConfirmBatchSettings)[]) {
    const value = given[key];
    if (value !== undefined) out[key] = value;
  }
  return out;
}

/** How long a batch whose answer never came waits for its server process to be gone. */
const SETTLE_WAIT_MS = 1000;
/** Times a batch whose answer never came is settled and sent again before its confirms answer 503. */
const MAX_RECOVERIES = 2;

/** A confirm whose claim's deadline is this close when its batch goes renews its claim first. */
const RENEW_AHEAD_MS = 1000;

/**
 * Longest a confirm reaching an idle batcher waits for the confirms admitted with it that are
 * still taking their claims in Redis (see next()). A confirm alone on the server waits for nothing.
 */
const SIBLING_WAIT_MS = 2;

/** Seconds a refused confirm is told to wait (Retry-After). */
const RETRY_AFTER_SECONDS = 1;

/** A confirm's place in the backlog, from admission until it ends. */
export interface ConfirmTicket {
  waiting: boolean;
}

interface Pending {
  item: ConfirmBatchItem;
  ticket: ConfirmTicket;
  /** Takes the confirm's claim again (updating item.held and item.claimUntil); see execute(). */
  renew?: () => Promise<void>;
  resolve(result: ConfirmBatchResult): void;
  reject(err: unknown): void;
}

export interface ConfirmBatchStats {
  batches: number;
  confirms: number;
  /** Batches of more than one confirm. */
  grouped: number;
  largest: number;
  /** Milliseconds spent in batch statements (from send to answer), summed. */
  statementMs: number;
  /** Batches whose statement got no answer and whose outcome was then looked for. */
  recovered: number;
}

export class ConfirmBatcher {
  private readonly queue: Pending[] = [];
  private running = 0;
  private waitingCount = 0;
  private timer: NodeJS.Timeout | null = null;
  private siblingTimer: NodeJS.Timeout | null = null;
  readonly stats: ConfirmBatchStats = { batches: 0, confirms: 0, grouped: 0, largest: 0, statementMs: 0, recovered: 0 };

  constructor(
    private readonly db: Db,
    readonly settings: ConfirmBatchSettings,
    private readonly onBatch: (size: number, seconds: number) => void = () => {},
  ) {}

  /** Confirms admitted and not yet running in a batch. */
  get waiting(): number {
    return this.waitingCount;
  }

  /** Confirms in the queue for the next batch (their Redis claims done). */
  get queued(): number {
    return this.queue.length;
  }

  /** Batches running now. */
  get runningBatches(): number {
    return this.running;
  }

  /** Refuses at once (503 OVERLOADED, Retry-After) when the backlog is full. */
  assertRoom(): void {
    if (this.waitingCount >= this.settings.maxWaiting) throw errors.overloaded(RETRY_AFTER_SECONDS);
  }

  /** Admits a confirm into the backlog, or refuses it at once; leave() when it ends, whatever happened. */
  admit(): ConfirmTicket {
    this.assertRoom();
    this.waitingCount++;
    return { waiting: true };
  }

  leave(ticket: ConfirmTicket): void {
    if (ticket.waiting) {
      ticket.waiting = false;
      this.waitingCount--;
      // A confirm that will not come (its claim failed): those queued need not wait for it.
      if (this.siblingTimer && this.queue.length >= this.waitingCount) this.next(false);
    }
  }

  /**
   * Runs one confirm in the next batch; resolves only after that batch's COMMIT. `renew` takes
   * the confirm's claim again when its batch is about to go after the claim's deadline.
   */
  run(item: ConfirmBatchItem, ticket: ConfirmTicket, renew?: () => Promise<void>): Promise<ConfirmBatchResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, ticket, resolve, reject, renew });
      this.next(false);
    });
  }

  /** `waited`: the wait for confirms still taking their claims is over (they go as they are). */
  private next(afterBatch: boolean, waited = false): void {
    const { maxBatch, maxWaitMs } = this.settings;
    if (this.running >= this.settings.inFlight || !this.queue.length) return;
    if (this.siblingTimer) {
      if (this.queue.length < maxBatch && this.queue.length < this.waitingCount) return;
      clearTimeout(this.siblingTimer);
      this.siblingTimer = null;
    } else if (!afterBatch && !waited && this.running === 0 && this.queue.length < Math.min(maxBatch, this.waitingCount)) {
      // Nothing runs, and confirms admitted with this one are still taking their claims in Redis
      // (admitted, not yet queued): they go with it once queued, or after SIBLING_WAIT_MS. Sent
      // at once, it went alone, and those behind it waited for its whole batch: under load a
      // quarter of the batches were of one confirm, each costing a statement, a COMMIT and a
      // round trip while the others queued.
      this.siblingTimer = setTimeout(() => {
        this.siblingTimer = null;
        this.next(false, true);
      }, SIBLING_WAIT_MS);
      return;
    }
    if (this.timer) {
      if (this.queue.length < maxBatch) return;
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (afterBatch && maxWaitMs > 0 && this.queue.length < maxBatch) {
      // A batch just ended and others are on their way: give them a moment to join.
      this.timer = setTimeout(() => {
        this.timer = null;
        this.next(false);
      }, maxWaitMs);
      return;
    }
    const batch = this.queue.splice(0, maxBatch);
    for (const p of batch) this.leave(p.ticket);
    this.running++;
    // The span `confirm.batch` (when tracing is on): a child of the confirm that started the batch.
    void withSpan('confirm.batch', { 'holdfast.confirm.batch_size': batch.length }, () => this.execute(batch)).finally(() => {
      this.running--;
      this.next(true);
    });
  }

  private async execute(batch: Pending[]): Promise<void> {
    this.stats.batches++;
    this.stats.confirms += batch.length;
    if (batch.length > 1) this.stats.grouped++;
    this.stats.largest = Math.max(this.stats.largest, batch.length);
    const started = performance.now();
    // A confirm that waited in the backlog until (nearly) its claim's deadline takes its claim
    // again first (Redis: renewed while still its own, else taken again or found gone), so no
    // batch commits on a lapsed claim; the function refuses one past its deadline anyway (lapsed).
    const stale = batch.filter((p) => p.renew && p.item.claimUntil !== null && p.item.claimUntil - started < RENEW_AHEAD_MS);
    if (stale.length) await Promise.all(stale.map((p) => p.renew!().catch(() => undefined)));
    try {
      const results = await this.recovering(batch.map((p) => p.item));
      const ms = performance.now() - started;
      this.stats.statementMs += ms;
      this.onBatch(batch.length, ms / 1000);
      // Committed. Its confirms are answered on the event loop's next turn, once the next batch
      // (which next() starts when this one ends, all in this turn) has been sent: answered here,
      // each confirm's own work (its hold ended in Redis, its HTTP answer written, up to 32 of
      // them) ran before the next batch left, and PostgreSQL sat idle meanwhile.
      setImmediate(() => {
        for (let i = 0; i < batch.length; i += 1) batch[i]!.resolve(results[i]!);
      });
    } catch (err) {
      if (batch.length === 1 || err instanceof DatabaseUnavailable) {
        for (const p of batch) p.reject(err);
        return;
      }
      // Something failed the whole batch (a deadlock, a statement that could not run):
      // one confirm's trouble must not fail the others, so each goes again alone.
      for (const p of batch) {
        try {
          p.resolve((await this.recovering([p.item]))[0]!);
        } catch (alone) {
          p.reject(alone);
        }
      }
    }
  }

  /**
   * Runs a batch; when its statement got no answer (ConfirmOutcomeUnknown: it may have
   * committed), finds out what happened before anyone is answered: the server process that
   * ran it is ended and awaited (settleConfirmBatch), so its transaction is over for good, and
   * the same batch is sent again. The function is idempotent per hold: a confirm whose order
   * committed the first time finds it now (answered as created when that order carries its
   * payment reference, since this request made it), the others are confirmed now. When
   * PostgreSQL cannot say in time, the confirms fail with ConfirmOutcomeUnknown (503): their
   * claims are kept, since their orders may exist.
   */
  private async recovering(items: ConfirmBatchItem[]): Promise<ConfirmBatchResult[]> {
    for (let recovery = 0; ; recovery++) {
      try {
        const results = await confirmBatch(this.db, items);
        if (recovery === 0) return results;
        return results.map((r, i) =>
          r.kind === 'existing' && r.order?.paymentReference === items[i]!.reference ? { ...r, kind: 'created' } : r);
      } catch (err) {
        if (!(err instanceof ConfirmOutcomeUnknown) || recovery >= MAX_RECOVERIES) throw err;
        this.stats.recovered++;
        if (!(await settleConfirmBatch(this.db, err.pid, SETTLE_WAIT_MS))) throw err;
      }
    }
  }

  /** Stops a pending gathering timer (shutdown). */
  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.siblingTimer) clearTimeout(this.siblingTimer);
    this.siblingTimer = null;
  }
}
