/**
 * Two buyers, an admin and a short hold, in real Chromium against the real
 * API. Screenshots of every step go to test-artifacts/e2e/.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createEvent, demoToken, type CreatedEvent } from './api';
import { launchBrowser } from './browser';
import { startRelay } from '@holdfast/test-kit';
import { startServer, type RunningServer } from './server';

const ARTIFACTS = path.resolve(__dirname, '../../../test-artifacts/e2e');
const PHONE = { viewport: { width: 375, height: 812 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 };
const DESKTOP = { viewport: { width: 1280, height: 900 } };

let server: RunningServer;
let browser: Browser;
let event: CreatedEvent;
let shortEvent: CreatedEvent;
const contexts: BrowserContext[] = [];
const pageErrors: string[] = [];

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
}

async function openPage(options: object, url: string, baseUrl = server.baseUrl): Promise<Page> {
  const context = await browser.newContext(options);
  contexts.push(context);
  const page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(`${url}: ${error.message}`));
  await page.goto(`${baseUrl}${url}`);
  return page;
}

async function openEvent(options: object, eventId: string, baseUrl = server.baseUrl): Promise<Page> {
  const page = await openPage(options, `/#/events/${eventId}`, baseUrl);
  await page.waitForSelector('[data-testid="live-status"]:text("Live")');
  await page.waitForSelector('[data-testid="seat-A-1-1"]');
  return page;
}

const seat = (page: Page, label: string) => page.locator(`[data-testid="seat-${label}"]`);

function seatShows(page: Page, label: string, status: string, timeout: number) {
  return page.waitForSelector(`[data-testid="seat-${label}"][data-status="${status}"]`, { timeout, state: 'attached' });
}

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  server = await startServer();
  browser = await launchBrowser();
  const admin = await demoToken(server.baseUrl, `e2e-admin-${Date.now()}`, 'admin');
  const stamp = new Date().toISOString().slice(11, 19);
  event = await createEvent(server.baseUrl, admin, { name: `E2E Concert ${stamp}`, holdTtlSeconds: 600 });
  shortEvent = await createEvent(server.baseUrl, admin, { name: `E2E Short Hold ${stamp}`, holdTtlSeconds: 3 });
});

afterAll(async () => {
  expect(pageErrors).toEqual([]);
  for (const context of contexts) await context.close();
  await browser?.close();
  await server?.stop();
});

test('two buyers, a payment, an admin release and an expiry, live in the browser', async () => {
  // Step 1: buyer A on a desktop, buyer B on a phone, both on the live seat map.
  const pageA = await openEvent(DESKTOP, event.id);
  const pageB = await openEvent(PHONE, event.id);
  expect(await seat(pageA, 'A-1-5').getAttribute('aria-label')).toBe('Seat A-1-5, premium, $120.00, available');
  await shot(pageA, '01-buyer-a-seat-map');
  await shot(pageB, '01-buyer-b-seat-map-phone');

  // Step 2: B picks A-1-5 but has not held it yet; A holds it with the keyboard.
  await seat(pageB, 'A-1-5').click();
  await seat(pageA, 'A-1-5').focus();
  await pageA.keyboard.press('Enter');
  expect(await seat(pageA, 'A-1-5').getAttribute('aria-pressed')).toBe('true');
  await pageA.click('[data-testid="hold-selected"]');
  await pageA.waitForSelector('[data-testid="hold-countdown"]');
  const heldAt = Date.now();
  await seatShows(pageB, 'A-1-5', 'held', 1000);
  expect(Date.now() - heldAt).toBeLessThan(1000);
  expect(await pageA.textContent('[data-testid="hold-countdown"]')).toMatch(/^(10:00|09:5\d)$/);
  await shot(pageA, '02-buyer-a-holds-A-1-5');
  await shot(pageB, '02-buyer-b-sees-A-1-5-held');

  // Step 3: B tries anyway and is told the seat was just taken.
  await pageB.click('[data-testid="hold-selected"]');
  const error = await pageB.waitForSelector('[data-testid="error-message"]');
  expect(await error.textContent()).toMatch(/A-1-5 was just taken/);
  await shot(pageB, '03-buyer-b-just-taken');

  // Step 4: B holds A-1-7 instead.
  await seat(pageB, 'A-1-7').click();
  await pageB.click('[data-testid="hold-selected"]');
  const holdB = await pageB.waitForSelector('[data-testid="hold-panel"]');
  const holdIdB = await holdB.getAttribute('data-hold-id');
  await seatShows(pageA, 'A-1-7', 'held', 1000);

  // Step 5: A pays and gets an order number.
  await pageA.click('[data-testid="pay-button"]');
  const orderNumber = await pageA.waitForSelector('[data-testid="order-number"]');
  expect(await orderNumber.textContent()).toMatch(/^HF-\d{4}-\d{6,}$/);
  await seatShows(pageB, 'A-1-5', 'sold', 2000);
  await shot(pageA, '04-buyer-a-order-number');

  // Step 6: an admin releases B's hold with a reason; A's map shows the seat free again.
  const admin = await openPage(DESKTOP, '/admin');
  await admin.click(`[data-testid="admin-release-${holdIdB}"]`);
  await admin.fill(`[data-testid="admin-release-reason-${holdIdB}"]`, 'Customer called: payment card declined');
  await shot(admin, '05-admin-release-reason');
  await admin.click(`[data-testid="admin-release-confirm-${holdIdB}"]`);
  await admin.waitForSelector(`[data-testid="admin-hold-${holdIdB}"]`, { state: 'detached' });
  await seatShows(pageA, 'A-1-7', 'available', 2000);
  await pageB.waitForSelector('[data-testid="hold-ended"][data-reason="released"]', { timeout: 3000 });
  await admin.waitForSelector('[data-testid="admin-audit"] >> text=Customer called: payment card declined', { timeout: 10_000 });
  await shot(admin, '05-admin-after-release');
  await shot(pageA, '06-buyer-a-sees-A-1-7-free');
  await shot(pageB, '06-buyer-b-hold-released');

  // Step 7: a 3-second hold runs out on screen and its seat returns to the map.
  await pageA.goto(`${server.baseUrl}/#/events/${shortEvent.id}`);
  await pageA.waitForSelector(`h1:text("${shortEvent.name}")`);
  await pageA.waitForSelector('[data-testid="live-status"]:text("Live")');
  await seat(pageA, 'B-2-4').click();
  await pageA.click('[data-testid="hold-selected"]');
  await pageA.waitForSelector('[data-testid="hold-countdown"]');
  expect(await pageA.textContent('[data-testid="hold-countdown"]')).toMatch(/^00:0[1-3]$/);
  await shot(pageA, '07-short-hold-counting-down');
  const ended = await pageA.waitForSelector('[data-testid="hold-ended"][data-reason="expired"]', { timeout: 5000 });
  expect(await ended.textContent()).toMatch(/expired/);
  expect(await seat(pageA, 'B-2-4').getAttribute('data-status')).toBe('available');
  await shot(pageA, '08-short-hold-expired');
});

test('when the connection drops, then the map says so, reconnects and catches up on what it missed', async () => {
  const relay = await startRelay(server.baseUrl);
  try {
    const page = await openEvent(DESKTOP, event.id, relay.url);
    relay.cut();
    await page.waitForSelector('[data-testid="live-status"]:text("Reconnecting")', { timeout: 5000 });
    // While the buyer is cut off, someone else holds a seat.
    const other = await demoToken(server.baseUrl, `e2e-other-${Date.now()}`, 'customer');
    const auth = { Authorization: `Bearer ${other}` };
    const seats = (await (await fetch(`${server.baseUrl}/v1/events/${event.id}/seats`, { headers: auth })).json()) as {
      seats: { id: string; label: string }[];
    };
    const target = seats.seats.find((s) => s.label === 'B-3-8');
    const held = await fetch(`${server.baseUrl}/v1/events/${event.id}/holds`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...auth },
      body: JSON.stringify({ seatIds: [target?.id] }),
    });
    expect(held.status).toBe(201);
    expect(await seat(page, 'B-3-8').getAttribute('data-status')).toBe('available');
    await shot(page, '09-connection-dropped');
    await relay.restore();
    await page.waitForSelector('[data-testid="live-status"]:text("Live")', { timeout: 40_000 });
    await seatShows(page, 'B-3-8', 'held', 5000);
    await shot(page, '10-reconnected-and-caught-up');
  } finally {
    await relay.close();
  }
});

test('when most of a tier is taken, then best available leads there and holds the best free seats side by side', async () => {
  const admin = await demoToken(server.baseUrl, `e2e-admin-busy-${Date.now()}`, 'admin');
  const busyEvent = await createEvent(server.baseUrl, admin, { name: `E2E Busy Tier ${Date.now()}`, holdTtlSeconds: 600 });
  // Others hold all of section A's premium row and two of B's: 10 of the 16 premium seats.
  const seats = (await (await fetch(`${server.baseUrl}/v1/events/${busyEvent.id}/seats`)).json()) as { seats: { id: string; label: string }[] };
  const ids = (labels: string[]) => labels.map((l) => seats.seats.find((s) => s.label === l)!.id);
  for (const [who, labels] of [
    ['e2e-busy-1', ['A-1-1', 'A-1-2', 'A-1-3', 'A-1-4', 'A-1-5']],
    ['e2e-busy-2', ['A-1-6', 'A-1-7', 'A-1-8', 'B-1-1', 'B-1-3']],
  ] as const) {
    const token = await demoToken(server.baseUrl, `${who}-${Date.now()}`, 'customer');
    const held = await fetch(`${server.baseUrl}/v1/events/${busyEvent.id}/holds`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
      body: JSON.stringify({ seatIds: ids([...labels]) }),
    });
    expect(held.status).toBe(201);
  }
  const page = await openEvent(DESKTOP, busyEvent.id);
  await page.waitForSelector('[data-testid="best-busy"]');
  expect(await page.locator('#best-tier').inputValue()).toBe('premium');
  await shot(page, '11-busy-tier-best-available');
  await page.click('[data-testid="hold-best"]');
  const panel = await page.waitForSelector('[data-testid="hold-panel"]');
  const text = (await panel.textContent()) ?? '';
  // The best pair left: B-1-4 and B-1-5 (B-1-2 sits alone between two held seats).
  expect(text).toContain('B-1-4');
  expect(text).toContain('B-1-5');
  await seatShows(page, 'B-1-4', 'yours', 5000);
  await seatShows(page, 'B-1-5', 'yours', 5000);
  await shot(page, '12-busy-tier-held');
});
