import { HoldfastError } from '../src';

/** The HoldfastError a call throws (anything else it throws is thrown on; a call that succeeds fails the test). */
export async function caught(promise: Promise<unknown>): Promise<HoldfastError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof HoldfastError) return error;
    throw error;
  }
  throw new Error('expected a HoldfastError, the call succeeded');
}
