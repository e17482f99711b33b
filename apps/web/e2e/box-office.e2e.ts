/**
 * The box office in real Chromium against the real API: an admin creates an
 * event with the form (seat map previewed before saving) and opens its sale; a
 * buyer waits for the opening, holds, asks for more time and pays; the admin's
 * dashboard changes without a reload; orders are found by number; the queue
 * dashboard needs the admin role. Screenshots go to test-artifacts/e2e/.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchBrowser } from './browser';
import { startServer, type RunningServer } from './server';

const ARTIFACTS = path.resolve(__dirname, '../../../test-artifacts/e2e');
const DESKTOP = { viewport: { width: 1280, height: 900 } };
const PHONE = { viewport: { width: 375, height: 812 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 };

let server: RunningServer;
let browser: Browser;
const contexts: BrowserContext[] = [];
const pageErrors: string[] = [];

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
}

async function openPage(options: object, url: string): Promise<Page> {
  const context = await browser.newContext(options);
  contexts.push(context);
  const page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(`${url}: ${error.message}`));
  await page.goto(`${server.baseUrl}${url}`);
  return page;
}

const text = async (page: Page, selector: string) => (await page.locator(selector).first().textContent())?.trim() ?? '';

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  server = await startServer();
  browser = await launchBrowser();
});

afterAll(async () => {
  expect(pageErrors).toEqual([]);
  for (const context of contexts) await context.close();
  await browser?.close();
  await server?.stop();
});

test('an admin creates an event with the form and opens its sale; a buyer waits for the opening, holds, extends and pays; the dashboard follows live', async () => {
  // Step 1: the admin fills the form; the seat map preview follows the layout before anything is saved.
  const admin = await openPage(DESKTOP, '/admin');
  await admin.click('[data-testid="new-event"]');
  const name = `Box Office ${new Date().toISOString().slice(11, 19)}`;
  await admin.fill('[data-testid="ev-name"]', name);
  await admin.fill('[data-testid="ev-hold-minutes"]', '1');
  await admin.fill('[data-testid="ev-max-extensions"]', '1');
  await admin.fill('[data-testid="ev-max-hold-minutes"]', '5');
  await admin.fill('[data-testid="ev-sections"]', 'A, B');
  await admin.fill('[data-testid="ev-rows"]', '3');
  await admin.fill('[data-testid="ev-per-row"]', '6');
  const previewSeats = admin.locator('[data-testid="ev-preview"] [data-status]');
  await admin.waitForFunction(() => document.querySelectorAll('[data-testid="ev-preview"] [data-status]').length === 36);
  await admin.fill('[data-testid="ev-per-row"]', '8');
  await admin.waitForFunction(() => document.querySelectorAll('[data-testid="ev-preview"] [data-status]').length === 48);
  expect(await previewSeats.count()).toBe(48);
  expect(await admin.locator('[data-testid="ev-preview"] [data-testid="seat-A-1-1"]').getAttribute('aria-label')).toContain('front, $90.00');
  expect(await admin.locator('[data-testid="ev-preview"] [data-testid="seat-B-3-8"]').getAttribute('aria-label')).toContain('back, $45.00');
  await admin.click('[data-testid="ev-add-ga"]');
  // The sale opens 30 s from now (the browser's own zone for datetime-local).
  const salesStartMs = Math.ceil((Date.now() + 30_000) / 1000) * 1000;
  const localStart = await admin.evaluate((ms) => {
    const d = new Date(ms);
    const p = (n: number) => String(n).padStart(2, '0');
    return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
  }, salesStartMs);
  await admin.fill('[data-testid="ev-sales-start"]', localStart);
  expect(await admin.inputValue('[data-testid="ev-status"]')).toBe('draft');
  await shot(admin, '10-admin-event-form-preview');
  await admin.click('[data-testid="ev-save"]');
  const row = admin.locator('tr[data-testid^="admin-event-"]', { hasText: name });
  await row.waitFor();
  const eventId = (await row.getAttribute('data-testid'))!.replace('admin-event-', '');
  expect(await text(admin, `[data-testid="admin-event-${eventId}"] [data-testid="event-status"]`)).toBe('Draft');

  // Step 2: a buyer (on a phone) sees the draft: nothing can be held.
  const buyer = await openPage(PHONE, `/#/events/${eventId}`);
  await buyer.waitForSelector('[data-testid="sale-notice"][data-gate="draft"]');
  await buyer.waitForSelector('[data-testid="seat-A-1-1"]');
  expect(await buyer.isDisabled('[data-testid="hold-selected"]')).toBe(true);
  await shot(buyer, '11-buyer-draft');

  // Step 3: the admin opens the sale and watches the event's dashboard.
  await admin.click(`[data-testid="admin-event-${eventId}"] [data-testid="open-sale"]`);
  await admin.waitForSelector(`[data-testid="admin-event-${eventId}"] [data-testid="event-status"]:text("On sale")`);
  await admin.click(`[data-testid="admin-event-${eventId}"] [data-testid="show-sales"]`);
  await admin.waitForSelector('[data-testid="dashboard-live"]:text("Live")');
  await admin.waitForSelector('[data-testid="sales-held"]:text("0")');
  await admin.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));

  // Step 4: the buyer's page counts down to the opening on the server's clock.
  await buyer.waitForSelector('[data-testid="sale-notice"][data-gate="opens"]', { timeout: 10_000 });
  const countdown = await text(buyer, '[data-testid="sale-countdown"]');
  expect(countdown).toMatch(/^00:[0-3]\d$/);
  await shot(buyer, '12-buyer-countdown-to-opening');
  await buyer.waitForSelector('[data-testid="sale-notice"]', { state: 'detached', timeout: 40_000 });
  const enabledAt = Date.now();
  // Enabled at the second the sale opens (the page's estimate of the server's clock, within a second).
  expect(enabledAt).toBeGreaterThanOrEqual(salesStartMs - 1000);
  expect(enabledAt).toBeLessThanOrEqual(salesStartMs + 1000);

  // Step 5: the buyer holds two seats at once.
  if (Date.now() < salesStartMs) await buyer.waitForTimeout(salesStartMs - Date.now());
  await buyer.locator('[data-testid="seat-A-1-3"]').click();
  await buyer.locator('[data-testid="seat-A-1-4"]').click();
  await buyer.click('[data-testid="hold-selected"]');
  await buyer.waitForSelector('[data-testid="hold-panel"]');

  // The dashboard shows the two held seats, without a reload.
  await admin.waitForSelector('[data-testid="sales-held"]:text("2")', { timeout: 10_000 });
  expect(await text(admin, '[data-testid="sales-tier-front"] [data-col="held"]')).toBe('2');
  expect(await admin.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
  await shot(admin, '13-admin-dashboard-held');

  // Step 6: a one-minute hold is in its last two minutes: "More time" is offered; once used, it is gone.
  await buyer.waitForSelector('[data-testid="extend-button"]');
  const before = await buyer.locator('[data-testid="hold-panel"]').getAttribute('data-hold-id');
  await buyer.waitForTimeout(2500);
  const leftBefore = await text(buyer, '[data-testid="hold-countdown"]');
  await shot(buyer, '14-buyer-held-more-time');
  await buyer.click('[data-testid="extend-button"]');
  await buyer.waitForSelector('[data-testid="extended-note"]');
  const leftAfter = await text(buyer, '[data-testid="hold-countdown"]');
  const seconds = (mmss: string) => Number(mmss.slice(0, 2)) * 60 + Number(mmss.slice(3));
  expect(seconds(leftAfter)).toBeGreaterThan(seconds(leftBefore));
  expect(await buyer.locator('[data-testid="extend-button"]').count()).toBe(0);
  expect(await buyer.locator('[data-testid="hold-panel"]').getAttribute('data-hold-id')).toBe(before);
  await shot(buyer, '15-buyer-extended');

  // Step 7: the buyer pays; the dashboard counts the order and its revenue.
  await buyer.click('[data-testid="pay-button"]');
  await buyer.waitForSelector('[data-testid="order-number"]');
  const orderNumber = await text(buyer, '[data-testid="order-number"]');
  await shot(buyer, '16-buyer-paid');
  await admin.waitForSelector('[data-testid="sales-orders"]:text("1")', { timeout: 10_000 });
  await admin.waitForSelector('[data-testid="sales-revenue"]:text("$180.00")');
  expect(await text(admin, '[data-testid="sales-tier-front"] [data-col="sold"]')).toBe('2');
  expect(await admin.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
  // The paid hold leaves the active holds at once (read again on the stream's change, not on the next poll).
  await admin.waitForSelector(`[data-testid="admin-hold-${before}"]`, { state: 'detached', timeout: 1500 });
  await shot(admin, '17-admin-dashboard-sold');

  // Step 8: the admin finds the order by its number, and by a seat.
  await admin.fill('[data-testid="order-search"]', orderNumber);
  await admin.press('[data-testid="order-search"]', 'Enter');
  await admin.waitForSelector(`[data-testid="admin-order-${orderNumber}"]`);
  expect(await admin.locator('[data-testid="admin-orders"] tbody tr').count()).toBe(1);
  await admin.fill('[data-testid="order-search"]', 'A-1-4');
  await admin.press('[data-testid="order-search"]', 'Enter');
  await admin.waitForSelector(`[data-testid="admin-order-${orderNumber}"]`);
  await admin.locator('[data-testid="admin-orders"]').scrollIntoViewIfNeeded();
  await shot(admin, '18-admin-order-search');
});

test('/admin/queues needs the admin role: refused without a token, open from the admin page', async () => {
  const stranger = await openPage(DESKTOP, '/v1/events');
  const refused = await stranger.goto(`${server.baseUrl}/admin/queues/`);
  expect(refused?.status()).toBe(401);
  await stranger.waitForSelector('text=Queue dashboard: admins only');
  await shot(stranger, '19-queues-refused');

  const admin = await openPage(DESKTOP, '/admin');
  await admin.waitForSelector('[data-testid="open-queues"]');
  const [board] = await Promise.all([admin.context().waitForEvent('page'), admin.click('[data-testid="open-queues"]')]);
  board.on('pageerror', (error) => pageErrors.push(`/admin/queues: ${error.message}`));
  await board.waitForLoadState();
  await board.waitForSelector('text=holdfast-expiry', { timeout: 20_000 });
  await board.waitForSelector('text=holdfast-maintenance');
  expect(board.url()).toBe(`${server.baseUrl}/admin/queues/`);
  // One queue's jobs: the buyer's hold of the first test left its expiry job there.
  await board.click('text=holdfast-expiry');
  await board.waitForSelector('text=Completed', { timeout: 20_000 });
  await board.waitForFunction(() => !document.body.innerText.includes('Loading...'), undefined, { timeout: 20_000 });
  await shot(board, '20-admin-queues');
});

test('a payment that could not become an order is marked refunded from the admin page: who, when and the note', async () => {
  // Set up through the API as a buyer would: hold, release, then pay the released hold (the demo payment).
  const admin = await openPage(DESKTOP, '/admin');
  await admin.waitForSelector('[data-testid="admin-events"]');
  const token = await admin.evaluate(async () => {
    const r = await fetch('/v1/auth/demo-token', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ customerId: `refund-buyer-${Date.now()}` }) });
    return ((await r.json()) as { token: string }).token;
  });
  const call = async (method: string, url: string, body?: unknown) => {
    const r = await fetch(`${server.baseUrl}${url}`, {
      method, headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: body ? JSON.stringify(body) : undefined,
    });
    return { status: r.status, body: (await r.json()) as Reply };
  };
  type Reply = {
    events: { id: string; salesStatus: string; ticketTypes: { id: string }[] }[];
    hold: { id: string };
    error?: { code: string };
  };
  const events = await call('GET', '/v1/events?limit=1000');
  const demo = events.body.events.find((e) => e.salesStatus === 'on_sale' && e.ticketTypes.length > 0)!;
  const held = await call('POST', `/v1/events/${demo.id}/holds`, { ticketTypeId: demo.ticketTypes[0]!.id, quantity: 1 });
  expect(held.status).toBe(201);
  expect((await call('DELETE', `/v1/holds/${held.body.hold.id}`)).status).toBe(200);
  const paid = await call('POST', `/v1/demo/holds/${held.body.hold.id}/pay`);
  // The released hold cannot be paid for: the payment is recorded as owed a refund.
  expect([paid.status, paid.body.error?.code]).toEqual([409, 'HOLD_NOT_ACTIVE']);

  // Its reference is the demo payment intent, named after the hold.
  const row = admin.locator('[data-testid^="admin-payment-"]', { hasText: `pi_demo_${held.body.hold.id.slice(-24)}` });
  await row.waitFor({ timeout: 15_000 });
  await row.locator('[data-testid="mark-refunded"]').click();
  await row.locator('[data-testid="refund-note"]').fill('Refunded in Stripe, re_e2e');
  await shot(admin, '21-admin-refund-note');
  await row.locator('[data-testid="refund-confirm"]').click();
  await row.locator('[data-testid="refund-done"]').waitFor();
  expect(await row.locator('[data-testid="refund-done"]').textContent()).toMatch(/^Refunded .+ by admin:.+: Refunded in Stripe, re_e2e$/);
  await admin.waitForSelector('text=payment.refunded', { timeout: 15_000 });
  await row.scrollIntoViewIfNeeded();
  await shot(admin, '22-admin-refund-recorded');
});
