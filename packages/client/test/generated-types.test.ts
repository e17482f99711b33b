import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { fullOpenApiDocument } from '@holdfast/api';
import { useTestApi } from '@holdfast/test-kit';
import { REGENERATE } from '../scripts/drift';

const exec = promisify(execFile);
const ROOT = path.resolve(__dirname, '../../..');
const GENERATE = path.resolve(__dirname, '../scripts/generate.ts');
const COMMITTED = path.resolve(__dirname, '../src/api.generated.ts');
const suite = useTestApi();

/** Runs the generator's check (openapi-typescript loads as ESM: in its own node process); its exit code and what it said. */
async function check(...args: string[]): Promise<{ code: number; stderr: string }> {
  try {
    const { stderr } = await exec(path.join(ROOT, 'node_modules/.bin/tsx'), [GENERATE, '--check', ...args], { cwd: ROOT });
    return { code: 0, stderr };
  } catch (error) {
    const e = error as { code?: number; stderr?: string };
    return { code: e.code ?? -1, stderr: e.stderr ?? String(error) };
  }
}

let dir: string;
beforeAll(() => { dir = mkdtempSync(path.join(tmpdir(), 'client-types-')); });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('when the client\'s types are generated from the document a running API serves, then they are the committed ones (else it says which command to run)', async () => {
  const result = await check('--from', `${suite.api.url}/openapi.json`);
  // On failure stderr names the first differing line and the command that brings the file up to date.
  expect(result).toEqual({ code: 0, stderr: '' });
  // `npm run generate` renders the document from the route table, without a server: the same document.
  expect(fullOpenApiDocument()).toEqual((await suite.api.call('GET', '/openapi.json')).body);
}, 120_000);

test('when the document gains a field or an endpoint the committed file lacks, or the file was edited, then the check fails naming the command', async () => {
  const doc = fullOpenApiDocument() as { paths: Record<string, unknown>; components: { schemas: Record<string, { properties?: Record<string, unknown> }> } };
  doc.components.schemas.Hold!.properties!.note = { type: 'string' };
  writeFileSync(path.join(dir, 'field.json'), JSON.stringify(doc));
  delete doc.components.schemas.Hold!.properties!.note;
  doc.paths['/v1/new-thing'] = { get: { operationId: 'newThing', responses: { 200: { description: 'ok' } } } };
  writeFileSync(path.join(dir, 'path.json'), JSON.stringify(doc));
  const edited = path.join(dir, 'edited.ts');
  writeFileSync(edited, readFileSync(COMMITTED, 'utf8').replace('totalCents: number;', 'totalCents: string;'));

  const [field, newPath, editedFile] = await Promise.all([
    check('--doc', path.join(dir, 'field.json')),
    check('--doc', path.join(dir, 'path.json')),
    check('--from', `${suite.api.url}/openapi.json`, '--file', edited),
  ]);
  expect(field.code).toBe(1);
  expect(field.stderr).toContain(`Run \`${REGENERATE}\``);
  expect(field.stderr).toMatch(/generated: note\?: string;/);
  expect(newPath).toMatchObject({ code: 1, stderr: expect.stringMatching(/new-thing/) });
  expect(editedFile).toMatchObject({ code: 1, stderr: expect.stringMatching(/committed: totalCents: string;/) });
}, 120_000);
