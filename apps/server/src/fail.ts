/** Stops `npm start` with a one-line message on standard error. */
export function fail(message: string): never {
  process.stderr.write(`holdfast: ${message}\n`);
  process.exit(1);
}
