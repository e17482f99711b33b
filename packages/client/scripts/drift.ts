import path from 'node:path';

/** The command that brings the generated file up to date. */
export const REGENERATE = 'npm run generate -w @holdfast/client';

/** Null when the committed text is the generated one; else what differs first and how to bring the file up to date. */
export function difference(committed: string, generated: string, file: string): string | null {
  if (committed === generated) return null;
  const a = committed.split('\n');
  const b = generated.split('\n');
  let line = 0;
  while (line < a.length && a[line] === b[line]) line++;
  return (
    `${path.relative(process.cwd(), file)} is not what the API's OpenAPI document generates (first difference at line ${line + 1}:\n` +
    `  committed: ${a[line]?.trim() ?? '(end of file)'}\n  generated: ${b[line]?.trim() ?? '(end of file)'}).\n` +
    `Run \`${REGENERATE}\` and commit the result.`
  );
}
