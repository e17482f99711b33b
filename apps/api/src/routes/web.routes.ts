import { existsSync } from 'node:fs';
import path from 'node:path';
import express, { Router, type Request, type Response } from 'express';
import { webDistDir } from '@holdfast/web';

/**
 * The pages built by apps/web, on the API's origin: the checkout at `/`, the
 * admin console at `/admin`, their hashed (hence immutable) assets under `/assets/`.
 */
export function webRoutes(distDir: string = webDistDir): Router {
  const r = Router();
  const page = (file: string) => (_req: Request, res: Response) => {
    const full = path.join(distDir, file);
    if (!existsSync(full)) {
      res.status(404).json({
        error: { code: 'NOT_FOUND', message: 'The web app is not built; run `npm run build -w @holdfast/web`.' },
      });
      return;
    }
    res.setHeader('Cache-Control', 'no-cache');
    res.sendFile(full);
  };
  r.get('/', page('index.html'));
  r.get('/admin', page('admin.html'));
  r.use('/assets', express.static(path.join(distDir, 'assets'), { immutable: true, maxAge: '1y', index: false }));
  return r;
}
