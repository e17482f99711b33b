import { existsSync } from 'node:fs';
import path from 'node:path';
import express, { type RequestHandler, type Router } from 'express';
import { webDistDir } from '@holdfast/web';
import { endpointOf } from '../endpoint';
import { mountEndpoints } from '../mount-endpoints';
import { err } from '../response-docs';

const endpoint = endpointOf<{ distDir: string }>();

/** Serves a built page of apps/web, or 404 (with the error body) while it is not built. */
const page = (file: string) => ({ res, deps }: { res: express.Response; deps: { distDir: string } }) => {
  const full = path.join(deps.distDir, file);
  if (!existsSync(full)) {
    res.status(404).json({
      error: { code: 'NOT_FOUND', message: 'The web app is not built; run `npm run build -w @holdfast/web`.' },
    });
    return;
  }
  res.setHeader('Cache-Control', 'no-cache');
  res.sendFile(full);
};

/** The pages built by apps/web, on the API's origin: the checkout at `/`, the admin console at `/admin`. */
export const WEB_ENDPOINTS = [
  endpoint({
    method: 'get', path: '/', operationId: 'checkoutPage', tag: 'Pages', summary: 'The checkout page (built by apps/web).',
    responses: { 200: { description: 'HTML', contentType: 'text/html' }, 404: err('NOT_FOUND when the web app is not built') },
    handler: page('index.html'),
  }),
  endpoint({
    method: 'get', path: '/admin', operationId: 'adminPage', tag: 'Pages', summary: 'The admin console page (built by apps/web).',
    responses: { 200: { description: 'HTML', contentType: 'text/html' }, 404: err('NOT_FOUND when the web app is not built') },
    handler: page('admin.html'),
  }),
];

/** The pages' hashed (hence immutable) assets under `/assets/`: files, not endpoints. */
export const webAssets = (distDir: string = webDistDir): RequestHandler =>
  express.static(path.join(distDir, 'assets'), { immutable: true, maxAge: '1y', index: false });

/** The pages and their assets, as one router. */
export function webRoutes(distDir: string = webDistDir): Router {
  const r = mountEndpoints(WEB_ENDPOINTS, { distDir }, {});
  r.use('/assets', webAssets(distDir));
  return r;
}
