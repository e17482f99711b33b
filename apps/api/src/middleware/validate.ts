import { issuesToDetails, type z } from '@holdfast/contracts';
import { errors } from '@holdfast/domain';

/** Parses a request part with its zod schema; a failure is 400 VALIDATION_FAILED naming each field. */
export function parse<S extends z.ZodType>(schema: S, value: unknown, where = 'body'): z.output<S> {
  const r = schema.safeParse(value);
  if (!r.success) throw errors.validation(issuesToDetails(r.error), `The request ${where} is not valid.`);
  return r.data;
}
