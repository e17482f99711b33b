export { optimisticVersionStrategy } from './optimistic-version.strategy';
export { readThenWriteStrategy } from './read-then-write.strategy';
export { selectForUpdateStrategy } from './select-for-update.strategy';
export { skipLockedStrategy } from './skip-locked.strategy';
