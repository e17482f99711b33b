/** Per-test-file environment: UTC clocks and a quiet log unless asked otherwise. */
process.env.TZ = 'UTC';
process.env.LOG_LEVEL ??= 'silent';
