/**
 * Suites that run a worker (sweeps and reconciliation see a whole database), or
 * that count every row of a table, get their own copy of the test database.
 */
export const ISOLATED_DATABASES = ['reconcile', 'expiry', 'flushall', 'outage', 'crash', 'sigstop', 'startup', 'fuzz', 'terminal', 'backlog', 'gacounters', 'bestflush', 'processes', 'lease', 'claims', 'webhooks', 'hookconfirm', 'tracing', 'hookkill', 'waitlist', 'emptyplans', 'retention', 'retentionjob', 'clock', 'failover', 'machinecpu', 'runcleanup', 'leftovers'] as const;

export function isolatedDatabaseUrl(name: (typeof ISOLATED_DATABASES)[number]): string {
  const u = new URL(process.env.DATABASE_URL!);
  u.pathname = `${u.pathname}_${name}`;
  return u.toString();
}
