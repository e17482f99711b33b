// AppError: a client error is an answer and carries no stack trace; a server error keeps its stack.
import { AppError, errors } from '../src/errors';

test('when a client error (4xx) is made, then it carries its code, status and details but no stack frames', () => {
  const err = errors.soldOut(3);
  expect(err).toBeInstanceOf(AppError);
  expect(err).toBeInstanceOf(Error);
  expect(err).toMatchObject({ name: 'AppError', code: 'SOLD_OUT', status: 409, details: { available: 3 } });
  expect(err.stack).toBe(`AppError: ${err.message}`);
});

test('when a server error (5xx) is made, then it keeps its stack, and the stack limit is as it was', () => {
  const before = Error.stackTraceLimit;
  const err = new AppError('REDIS_UNAVAILABLE', 'Redis is not answering.', 503);
  expect(err.stack?.split('\n').length).toBeGreaterThan(1);
  expect(err.stack).toContain('app-error.test.ts');
  expect(Error.stackTraceLimit).toBe(before);
  errors.soldOut(1);
  expect(Error.stackTraceLimit).toBe(before);
});
