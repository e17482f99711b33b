import { DatabaseUnavailable, TransactionConflict } from '@holdfast/db';
import { RedisUnavailable } from '@holdfast/hold-store';
import { AppError, errors } from './errors';

const REDIS_DOWN = /Connection is closed|Stream isn't writeable|enableOfflineQueue|Command timed out|ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|MaxRetriesPerRequest|Reached the max retries|LOADING|CLUSTERDOWN|MASTERDOWN|NOREPLICAS|TRYAGAIN|Too many Cluster redirections|Failed to refresh slots cache|None of startup nodes is available|Cluster isn't ready/;

/**
 * Maps any error to the domain's AppError family: outages of PostgreSQL or
 * Redis become 503 SERVICE_UNAVAILABLE; anything else unknown is left as null
 * (an internal error the caller reports as 500 without its message).
 */
export function appErrorOf(err: unknown): AppError | null {
  if (err instanceof AppError) return err;
  if (err instanceof DatabaseUnavailable) return errors.unavailable('PostgreSQL');
  if (err instanceof TransactionConflict) return errors.unavailable('PostgreSQL (contention)');
  if (err instanceof RedisUnavailable) return errors.unavailable('Redis');
  const e = err as { name?: string; message?: string } | null;
  if (e && (e.name === 'MaxRetriesPerRequestError' || REDIS_DOWN.test(String(e.message)))) {
    return errors.unavailable('Redis');
  }
  return null;
}
