import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import express from 'express';
import { webRoutes } from '../src/routes/web.routes';
import { useTestApi } from '@holdfast/test-kit';

async function serve(distDir: string): Promise<{ url: string; server: Server }> {
  const app = express();
  app.use(webRoutes(distDir));
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('the web app on the API origin', () => {
  let dist: string;
  beforeAll(() => {
    dist = mkdtempSync(path.join(tmpdir(), 'holdfast-web-'));
    mkdirSync(path.join(dist, 'assets'));
    writeFileSync(path.join(dist, 'index.html'), '<title>checkout</title>');
    writeFileSync(path.join(dist, 'admin.html'), '<title>admin</title>');
    writeFileSync(path.join(dist, 'assets', 'app-1a2b.js'), 'export {};');
  });
  afterAll(() => rmSync(dist, { recursive: true, force: true }));

  test('when the pages are built, then / is the checkout, /admin the admin page and assets are cached for good', async () => {
    const { url, server } = await serve(dist);
    try {
      const checkout = await fetch(`${url}/`);
      expect(checkout.headers.get('content-type')).toMatch(/text\/html/);
      expect(await checkout.text()).toBe('<title>checkout</title>');
      expect(await (await fetch(`${url}/admin`)).text()).toBe('<title>admin</title>');
      const asset = await fetch(`${url}/assets/app-1a2b.js`);
      expect(asset.status).toBe(200);
      expect(asset.headers.get('cache-control')).toMatch(/immutable/);
    } finally {
      server.close();
    }
  });

  test('when the pages are not built, then / answers a JSON error that says how to build them', async () => {
    const { url, server } = await serve(path.join(dist, 'missing'));
    try {
      const res = await fetch(`${url}/`);
      expect(res.status).toBe(404);
      const body = (await res.json()) as { error: { message: string } };
      expect(body.error.message).toMatch(/npm run build -w @holdfast\/web/);
    } finally {
      server.close();
    }
  });
});

describe('the API app', () => {
  const { api } = useTestApi();

  test('when a page is served over plain http, then its CSP does not upgrade requests to https', async () => {
    const res = await fetch(`${api.url}/admin`);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toMatch(/script-src 'self'/);
    expect(csp).not.toMatch(/upgrade-insecure-requests/);
  });
});
