import type { Pool } from 'pg';

/** One flash sale: `buyers` people each try to buy one of `tickets` tickets, `concurrency` at a time. */
export interface FlashSale {
  buyers: number;
  tickets: number;
  concurrency: number;
  priceCents: number;
}

/** What the lab hands every strategy: a pool of `concurrency` connections in the run's own schema. */
export interface LabResources {
  pool: Pool;
  sale: FlashSale;
}

export type PurchaseOutcome =
  | { kind: 'bought' }
  /** The strategy saw no ticket left. */
  | { kind: 'sold_out' }
  /** The strategy gave up (e.g. optimistic retries ran out) without knowing whether tickets remain. */
  | { kind: 'gave_up'; attempts: number };

/** One buyer's connection (or HTTP session): used by one concurrent loop for the whole sale. */
export interface SaleClient {
  purchase(buyerId: number): Promise<PurchaseOutcome>;
  close(): Promise<void>;
}

interface SaleTally {
  /** Committed purchases (rows), the ground truth for overselling. */
  sold: number;
  /** What the strategy's own counter believes was sold, when it keeps one. */
  counterSays?: number;
}

export interface SaleStrategy {
  readonly id: string;
  readonly title: string;
  /** True when the strategy claims it can never oversell (the smoke test holds it to that). */
  readonly fenced: boolean;
  /** When set, the strategy cannot run here and the report says why. */
  unavailableReason?(): string | null;
  /** Creates and seeds the strategy's own tables for a fresh sale. */
  prepare(resources: LabResources): Promise<void>;
  openClient(resources: LabResources): Promise<SaleClient>;
  tally(resources: LabResources): Promise<SaleTally>;
  /**
   * The strategy's own warm-up (holdfast's API: sales on throwaway events until its CPU per request
   * stops falling). The lab runs it once, unmeasured, before the strategy's first measured sale.
   */
  warmUp?(resources: LabResources): Promise<WarmUpReport>;
  /**
   * After the clock, before the tally: waits until the work the sale started is done (holdfast: the
   * API has persisted every hold of its outbox). Not timed, but inside the window the CPU is read over.
   */
  settle?(resources: LabResources): Promise<void>;
  /** Drops whatever `prepare` created. */
  cleanup(resources: LabResources): Promise<void>;
  /** After the sale (outside its clock and CPU window): the group-commit batches its confirms went in (holdfast's API). */
  confirmBatches?(): Promise<ConfirmBatchesOfSale | null>;
}

/**
 * The confirm batches of one holdfast sale, from the API's own metrics read before and after it
 * (`holdfast_confirm_batch_size`, `holdfast_confirm_batch_seconds`): how many, their mean size, and
 * the time the batch statement took summed over them. With one batch in flight, that sum against
 * the sale's clock says how much of the sale PostgreSQL's confirm statement was the pace.
 */
export interface ConfirmBatchesOfSale {
  batches: number;
  meanSize: number | null;
  statementMs: number;
}

/** Warm-up sales run before the clock, and the API's CPU per request in each. */
export interface WarmUpReport {
  sales: number;
  apiCpuMsPerRequest: number[];
}

/**
 * CPU milliseconds per buyer of a sale in every process it used, read from /proc over the sale
 * (its clock and its `settle`): each process's CPU ÷ the buyers (bought or refused alike).
 */
export interface SaleCpuPerBuyer {
  /** holdfast's API process; null for a strategy without one (the SQL strategies). */
  server: number | null;
  /** The redis-server (all of it: other users of the same server too); null when the strategy does not use Redis. */
  redis: number | null;
  /** PostgreSQL's shared processes and its sessions on the database the strategy uses. */
  postgres: number | null;
  /** The bench process: the buyers' clients (HTTP or pg) and the lab's loop. */
  client: number;
  /** All CPUs of the machine, busy time (neighbours included). */
  machine: number | null;
}
