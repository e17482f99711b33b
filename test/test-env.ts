// Tests run against their own database on the machine's PostgreSQL and Redis.
process.env.DATABASE_URL ??= 'postgresql://postgres@127.0.0.1:5432/holdfast_test';
process.env.REDIS_URL ??= 'redis://127.0.0.1:6379/0';
process.env.LOG_LEVEL ??= 'silent';
process.env.NODE_ENV ??= 'test';
