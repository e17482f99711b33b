import { DatabaseUnavailable, TransactionConflict } from '@holdfast/db';
import { StoreUnavailableError } from '@holdfast/hold-store';
import { AppError, errors } from './errors';

/**
 * Maps any error to the domain's AppError family: outages of PostgreSQL or
 * Redis (as their data-access packages translated them) become 503
 * SERVICE_UNAVAILABLE; anything else unknown is left as null (an internal
 * error the caller reports as 500 without its message).
 */
export function appErrorOf(err: unknown): AppError | null {
  if (err instanceof AppError) return err;
  if (err instanceof DatabaseUnavailable) return errors.unavailable('PostgreSQL');
  if (err instanceof TransactionConflict) return errors.unavailable('PostgreSQL (contention)');
  if (err instanceof StoreUnavailableError) return errors.unavailable('Redis');
  return null;
}
