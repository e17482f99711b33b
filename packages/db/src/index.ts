export { createDb, type Db, type DbOptions } from './client';
export { createPgPool } from './pg-pool';
export { UniqueViolation, TransactionConflict, DatabaseUnavailable, translateDbError, translated } from './errors';
export * from './event.repository';
export * from './hold.repository';
export { runTransaction, type Tx } from './transaction';
export { ensureDatabase, migrateDatabase, pingDatabase } from './admin';
export * from './audit.repository';
export * from './admin-list.repository';
