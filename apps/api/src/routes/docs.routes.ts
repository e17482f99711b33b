import { Router } from 'express';
import { emptyQuery } from '@holdfast/contracts';
import { renderDocs } from '../docs-page';
import { parse } from '../middleware/validate';
import { buildOpenApi } from '../openapi';

/** The OpenAPI 3.1 document at /openapi.json and its readable page at /docs, built once. */
export function docsRoutes(opts: { demoMode: boolean }): Router {
  const doc = buildOpenApi(opts);
  const json = JSON.stringify(doc);
  const html = renderDocs(doc);
  const r = Router();
  r.get('/openapi.json', (req, res) => {
    parse(emptyQuery, req.query, 'query');
    res.type('application/json').send(json);
  });
  r.get('/docs', (req, res) => {
    parse(emptyQuery, req.query, 'query');
    res.type('text/html; charset=utf-8').send(html);
  });
  return r;
}
