/**
 * Writes src/api.generated.ts from the API's OpenAPI document: the types of
 * every path and schema (openapi-typescript) and the operations that take an
 * Idempotency-Key. The document is rendered from the route table without a
 * server; `--from <url>` reads a running server's /openapi.json instead
 * (`--doc <path>`: a document in a file).
 * `--check` writes nothing: it exits 1, saying so, when the file differs
 * (`--file <path>` checks another copy).
 *
 *   npm run generate -w @holdfast/client
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import { difference, REGENERATE } from './drift';

const TARGET = path.resolve(__dirname, '../src/api.generated.ts');

type Doc = OpenAPI3 & { paths: Record<string, Record<string, { parameters?: { name: string; in: string }[] }>> };

const HEADER = `/**
 * The holdfast API's types, generated from its OpenAPI document by
 * openapi-typescript (scripts/generate.ts). Do not edit: run
 * \`${REGENERATE}\` after changing an endpoint or a schema.
 */
`;

/** The file's text for a document. */
export async function render(doc: Doc): Promise<string> {
  const ast = await openapiTS(doc, { defaultNonNullable: false, rootTypes: true, silent: true });
  const idempotent: string[] = [];
  for (const [p, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      if (op.parameters?.some((x) => x.in === 'header' && x.name.toLowerCase() === 'idempotency-key')) idempotent.push(`${method.toUpperCase()} ${p}`);
    }
  }
  const runtime = `
/** The operations that take an \`Idempotency-Key\` header, as \`METHOD /path/{param}\`. */
export const idempotentOperations: readonly string[] = ${JSON.stringify(idempotent.sort(), null, 2).replace(/"/g, "'")};
`;
  return `${HEADER}\n${astToString(ast)}${runtime}`;
}

async function documentFrom(from: string | undefined, file: string | undefined): Promise<Doc> {
  if (file) return JSON.parse(readFileSync(file, 'utf8')) as Doc;
  if (from) {
    const res = await fetch(from);
    if (!res.ok) throw new Error(`${from} answered ${res.status}`);
    return (await res.json()) as Doc;
  }
  // Imported here so that `--from` needs nothing of the API's code.
  const { fullOpenApiDocument } = await import('@holdfast/api');
  return fullOpenApiDocument() as unknown as Doc;
}

async function main(argv: string[]): Promise<number> {
  const flag = (name: string) => {
    const i = argv.indexOf(name);
    return i === -1 ? undefined : argv[i + 1];
  };
  const text = await render(await documentFrom(flag('--from'), flag('--doc')));
  if (argv.includes('--check')) {
    const file = flag('--file') ?? TARGET;
    let committed = '';
    try {
      committed = readFileSync(file, 'utf8');
    } catch {
      /* missing: differs */
    }
    const differs = difference(committed, text, file);
    if (differs === null) return 0;
    process.stderr.write(`${differs}\n`);
    return 1;
  }
  writeFileSync(TARGET, text);
  process.stdout.write(`wrote ${path.relative(process.cwd(), TARGET)}\n`);
  return 0;
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
      process.exit(2);
    },
  );
}
