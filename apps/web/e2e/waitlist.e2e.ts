/**
 * Issue 30 in real Chromium against the real server: a buyer finds a tier sold
 * out, joins its waiting list from the page and sees their place; when the
 * seat comes back (another buyer releases it), the page shows the offer as
 * their hold with its countdown, and they pay it. Screenshots go to test-artifacts/e2e/.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext } from 'playwright-core';
import { apiCall, demoToken } from './api';
import { launchBrowser } from './browser';
import { startServer, type RunningServer } from './server';

const ARTIFACTS = path.resolve(__dirname, '../../../test-artifacts/e2e');
const DESKTOP = { viewport: { width: 1280, height: 900 } };

let server: RunningServer;
let browser: Browser;
let context: BrowserContext | undefined;
const pageErrors: string[] = [];

const call = (method: string, url: string, token: string, body?: unknown) => apiCall(server.baseUrl, method, url, token, body);

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  server = await startServer();
  browser = await launchBrowser();
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await server?.stop();
});

test('when a tier is sold out, then the page offers the waiting list; when a seat comes back, it shows the offer with its countdown and pays it', async () => {
  const stamp = new Date().toISOString().slice(11, 19);
  const admin = await demoToken(server.baseUrl, `e2e-wl-admin-${stamp}`, 'admin');
  const created = await call('POST', '/v1/admin/events', admin, {
    name: `E2E Waiting List ${stamp}`, startsAt: new Date(Date.now() + 30 * 86_400_000).toISOString(), holdTtlSeconds: 600,
    waitlistOfferSeconds: 300,
    seats: [1, 2].map((number) => ({ section: 'A', row: '1', number, tier: 'floor', priceCents: 8000 })),
  });
  expect(created.status).toBe(201);
  const eventId = created.body.event.id as string;
  const other = await demoToken(server.baseUrl, `e2e-wl-other-${stamp}`, 'customer');
  const taken = await call('POST', `/v1/events/${eventId}/holds`, other, { tier: 'floor', quantity: 2 });
  expect(taken.status).toBe(201);

  context = await browser.newContext(DESKTOP);
  const page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(error.message));
  await page.goto(`${server.baseUrl}/#/events/${eventId}`);
  await page.waitForSelector('[data-testid="seat-A-1-1"]');
  await page.fill('#best-quantity', '1');
  await page.click('[data-testid="hold-best"]');
  await page.click('[data-testid="join-waitlist"]');
  await page.waitForSelector('[data-testid="waitlist-entry"][data-state="waiting"]');
  expect(await page.locator('[data-testid="waitlist-position"]').textContent()).toBe('#1');
  await page.screenshot({ path: path.join(ARTIFACTS, 'waitlist-01-in-line.png'), fullPage: true });

  // The box office sees the entry in the event's waiting list, with its place.
  const adminPage = await context.newPage();
  adminPage.on('pageerror', (error) => pageErrors.push(error.message));
  await adminPage.goto(`${server.baseUrl}/admin`);
  await adminPage.selectOption('[data-testid="admin-event-filter"]', eventId);
  await adminPage.waitForSelector('[data-testid="admin-waitlist"] td:text("waiting")');
  await adminPage.screenshot({ path: path.join(ARTIFACTS, 'waitlist-01b-box-office.png'), fullPage: true });
  await adminPage.close();

  // The other buyer releases: the seat goes to the line, as this buyer's hold.
  expect((await call('DELETE', `/v1/holds/${taken.body.hold.id}`, other)).status).toBe(200);
  await page.waitForSelector('[data-testid="waitlist-offer"]', { timeout: 15_000 });
  await page.waitForSelector('[data-testid="hold-countdown"]');
  const countdown = await page.locator('[data-testid="hold-countdown"]').textContent();
  expect(countdown).toMatch(/^0[45]:\d\d$/);
  await page.screenshot({ path: path.join(ARTIFACTS, 'waitlist-02-offer.png'), fullPage: true });
  await page.click('[data-testid="pay-button"]');
  await page.waitForSelector('[data-testid="order-number"]', { timeout: 30_000 });
  await page.screenshot({ path: path.join(ARTIFACTS, 'waitlist-03-paid.png'), fullPage: true });
  expect(pageErrors).toEqual([]);
});
