/**
 * Issue 29 in real Chromium against the real server: a buyer joins an event's
 * waiting room before the opening, sees their place fall as admission moves
 * on (the API's tick, nobody asking; the page counts from the stream and reads
 * `queue/me` only a few times), is let in (the seat map opens by itself), holds a seat and pays. The
 * box office watches the room. Screenshots go to test-artifacts/e2e/.
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

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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

test('when a buyer joins the waiting room before the opening, then they see their place fall, are let in, hold and pay', async () => {
  const admin = await demoToken(server.baseUrl, `e2e-room-admin-${Date.now()}`, 'admin');
  const stamp = new Date().toISOString().slice(11, 19);
  const opensAt = Date.now() + 15_000;
  const created = await call('POST', '/v1/admin/events', admin, {
    name: `E2E Waiting Room ${stamp}`, startsAt: new Date(Date.now() + 30 * 86_400_000).toISOString(), holdTtlSeconds: 600,
    salesStartAt: new Date(opensAt).toISOString(),
    seats: [1, 2, 3, 4, 5, 6, 7, 8].map((number) => ({ section: 'A', row: '1', number, tier: 'standard', priceCents: 6500 })),
    waitingRoom: { admitPerMinute: 60, maxActive: 100, passSeconds: 600, preQueueSeconds: 3600 },
  });
  expect(created.status).toBe(201);
  const eventId = created.body.event.id as string;

  // 40 other buyers join before the opening too (through the API); places are drawn at the opening.
  for (let i = 0; i < 40; i++) {
    const token = await demoToken(server.baseUrl, `e2e-crowd-${i}-${stamp}`, 'customer');
    expect((await call('POST', `/v1/events/${eventId}/queue`, token, {})).status).toBe(200);
  }

  context = await browser.newContext(DESKTOP);
  const page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(error.message));
  // The page's reads of where it stands: it places itself from the stream's count, so it asks only a few times.
  const standingReads: number[] = [];
  page.on('request', (request) => {
    if (request.method() === 'GET' && new URL(request.url()).pathname.endsWith('/queue/me')) standingReads.push(Date.now());
  });
  // The first read after the opening fails (the connection drops): the page must try again, not wait for ever.
  let failedRead = false;
  await page.route('**/queue/me', async (route) => {
    if (!failedRead && Date.now() >= opensAt) {
      failedRead = true;
      await route.abort('connectionreset');
    } else await route.continue();
  });
  await page.goto(`${server.baseUrl}/#/events/${eventId}`);
  await page.waitForSelector('[data-testid="queue-panel"][data-state="none"]');
  await page.click('[data-testid="queue-join"]');
  await page.waitForSelector('[data-testid="queue-panel"][data-state="waiting"]');
  await page.screenshot({ path: path.join(ARTIFACTS, 'room-01-waiting-before-opening.png'), fullPage: true });
  // Before the opening the place is the draw's rank so far: others joining may still be drawn ahead, and the page says so.
  expect(await page.locator('[data-testid="queue-provisional"]').count()).toBe(1);

  // Nobody else asks anything: the API's tick moves admission on (one a second), the stream tells the page.
  const joinedAt = Date.now();
  const positions: number[] = [];
  const deadline = Date.now() + 90_000;
  let admitted = false;
  while (!admitted && Date.now() < deadline) {
    const text = await page.locator('[data-testid="queue-position"]').textContent({ timeout: 200 }).catch(() => null);
    if (text && Number(text) !== positions[positions.length - 1]) positions.push(Number(text));
    if (positions.length === 2) {
      // The place falls only after the opening: it is no longer provisional.
      await page.waitForSelector('[data-testid="queue-provisional"]', { state: 'detached', timeout: 5_000 });
      await page.screenshot({ path: path.join(ARTIFACTS, 'room-02-place-falling.png'), fullPage: true });
    }
    admitted = (await page.locator('[data-testid="seat-A-1-1"]').count()) > 0;
    await sleep(250);
  }
  expect(admitted).toBe(true);
  expect(failedRead).toBe(true);
  // Its place was shown and fell (unless the draw put it first: 1 chance in 41), and it only ever fell.
  expect(positions[0] === 1 || positions.length >= 2).toBe(true);
  expect(positions.every((p, i) => i === 0 || p < positions[i - 1]!)).toBe(true);
  // Its place fell one by one on the page (most of the 40 places admitted before it were shown)...
  expect(positions[0] === 1 || positions.length >= Math.min(10, positions[0]! - 1)).toBe(true);
  // ...while it read queue/me only a few times: once after the opening (twice: that read failed), at its turn (and
  // once more if the turn read came a moment early). Reading on every admission makes one read per place: up to 40.
  const whileWaiting = standingReads.filter((t) => t >= joinedAt).length;
  expect(whileWaiting).toBeGreaterThanOrEqual(2);
  expect(whileWaiting).toBeLessThanOrEqual(5);

  await page.screenshot({ path: path.join(ARTIFACTS, 'room-03-admitted-seat-map.png'), fullPage: true });
  await page.click('[data-testid="seat-A-1-1"]');
  await page.click('[data-testid="hold-selected"]');
  await page.waitForSelector('[data-testid="hold-countdown"]');
  await page.click('[data-testid="pay-button"]');
  await page.waitForSelector('[data-testid="order-number"]', { timeout: 30_000 });
  await page.screenshot({ path: path.join(ARTIFACTS, 'room-04-paid.png'), fullPage: true });
  // The payment ended the pass: once the buyer goes on, the page offers to join again (not a seat map whose holds are refused).
  await page.click('button:text("Book more tickets")');
  await page.waitForSelector('[data-testid="queue-panel"][data-state="ended"] [data-testid="queue-join"]', { timeout: 10_000 });
  expect(await page.locator('[data-testid="seat-A-1-1"]').count()).toBe(0);

  // The box office's view of the room.
  const adminPage = await context.newPage();
  await adminPage.goto(`${server.baseUrl}/admin`);
  await adminPage.selectOption('[data-testid="admin-event-filter"]', eventId);
  await adminPage.waitForSelector('[data-testid="queue-controls"] >> text=admitted');
  await adminPage.screenshot({ path: path.join(ARTIFACTS, 'room-05-box-office.png'), fullPage: true });
  expect(pageErrors).toEqual([]);
});
