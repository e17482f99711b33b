import { emptyQuery } from '@holdfast/contracts';
import { endpointOf } from '../endpoint';

/** The OpenAPI document and its readable page, rendered once at start-up from the mounted endpoints (app.ts). */
export interface RenderedDocs {
  json: string;
  html: string;
}

const endpoint = endpointOf<RenderedDocs>();

/** The OpenAPI 3.1 document at /openapi.json and its readable page at /docs. */
export const DOCS_ENDPOINTS = [
  endpoint({
    method: 'get', path: '/openapi.json', operationId: 'openapi', tag: 'Operations', summary: 'This document (OpenAPI 3.1).', query: emptyQuery,
    responses: { 200: { description: 'the OpenAPI document', contentType: 'application/json' } },
    handler: ({ res, deps }) => {
      res.type('application/json').send(deps.json);
    },
  }),
  endpoint({
    method: 'get', path: '/docs', operationId: 'docs', tag: 'Operations', summary: 'This document as a readable page.', query: emptyQuery,
    responses: { 200: { description: 'HTML', contentType: 'text/html' } },
    handler: ({ res, deps }) => {
      res.type('text/html; charset=utf-8').send(deps.html);
    },
  }),
];
