import express from 'express';

/**
 * The JSON body parser (100 KiB, objects and arrays only). It runs per route,
 * after authentication and the role check, so a caller without a valid token
 * never gets its body read: it is answered 401/403, whatever the body.
 */
export const jsonBody = express.json({ limit: '100kb', strict: true, type: ['application/json', 'application/*+json'] });
