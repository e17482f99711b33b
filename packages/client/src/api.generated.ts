/**
 * The holdfast API's types, generated from its OpenAPI document by
 * openapi-typescript (scripts/generate.ts). Do not edit: run
 * `npm run generate -w @holdfast/client` after changing an endpoint or a schema.
 */

export interface paths {
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The process runs. */
        get: operations["health"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** PostgreSQL and Redis both answer. */
        get: operations["ready"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Prometheus text exposition. */
        get: operations["metrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** This document (OpenAPI 3.1). */
        get: operations["openapi"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/docs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** This document as a readable page. */
        get: operations["docs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/demo-token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Demo mode only: a signed token for a customer id and role (404 outside demo mode). */
        post: operations["demoToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Put an event on sale with its seats (a list of up to 100,000, or a layout of sections × rows × seats per row) and ticket types.
         * @description Roles: admin.
         */
        post: operations["createEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/events/{eventId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Change an event's settings (name, start, hold time, limits, extensions, sale window and status); seats and ticket types stay as created. Audited.
         * @description Roles: admin.
         */
        patch: operations["updateEvent"];
        trace?: never;
    };
    "/v1/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Events, oldest first. */
        get: operations["listEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/events/{eventId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** An event with its ticket types and their availability. */
        get: operations["getEvent"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/events/{eventId}/seats": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Every seat of the event with its status. */
        get: operations["listSeats"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/events/{eventId}/stream": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Server-Sent Events: `seat` {seatId, status} when a seat changes status, `availability` {ticketTypeId, available} when a ticket type's availability changes, `queue` {admitted, waiting, perMinute} when the waiting room admits places (one message per admission, not per buyer; about one a second while a room admits): `admitted` counts the places admitted so far, so a waiting page is at its `queue/me` position − (admitted now − its answer's `admitted`) without asking again; `perMinute` is the pace wait estimates use. */
        get: operations["streamEvent"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/events/{eventId}/queue": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Join the event's waiting room (one place per customer; joining again keeps it). Open from salesStartAt − preQueueSeconds; places taken before salesStartAt are drawn at random at the opening, later ones are in arrival order. With challengeBits, send `nonce`: SHA-256 of event id + customer id + nonce must have that many leading zero bits.
         * @description Roles: customer.
         */
        post: operations["joinQueue"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/events/{eventId}/queue/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Where the customer stands in the event's waiting room: waiting (position, etaSeconds), admitted (pass, passExpiresAt), ended (the pass ended: join again for a new place at the back), or none (not joined).
         * @description Roles: customer.
         */
        get: operations["getQueueStanding"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/events/{eventId}/queue": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The waiting room as it is: places waiting, admitted so far, passes active now, its rate and most active passes, paused or not.
         * @description Roles: admin.
         */
        get: operations["adminGetQueue"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Pause or resume the waiting room, or change its rate (admitPerMinute) or most active passes (maxActive; the event's waitingRoom follows). Audited (queue.updated).
         * @description Roles: admin.
         */
        patch: operations["adminUpdateQueue"];
        trace?: never;
    };
    "/v1/events/{eventId}/holds": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Hold seats (by id or best available in a tier) or general-admission tickets for the event's hold time.
         * @description Roles: customer.
         */
        post: operations["createHold"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/holds/{holdId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A hold (a customer sees only their own).
         * @description Roles: customer, service, admin.
         */
        get: operations["getHold"];
        put?: never;
        post?: never;
        /**
         * The owner releases a hold; its seats and tickets are free at once.
         * @description Roles: customer.
         */
        delete: operations["releaseHold"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/holds/{holdId}/extend": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * More time: expiresAt moves to now + the event's hold time, at most maxHoldExtensions times and never past createdAt + maxHoldSeconds; every seat key and ticket lease moves together (body empty or `{}`).
         * @description Roles: customer, admin.
         */
        post: operations["extendHold"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/holds/{holdId}/confirm": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Turn a hold into an order after the payment was captured elsewhere; a hold becomes at most one order.
         * @description Roles: service, admin.
         */
        post: operations["confirmHold"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/stripe": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Stripe events (`payment_intent.succeeded`, `checkout.session.completed` when paid, `checkout.session.async_payment_succeeded`); a paid event that cannot become an order is recorded as refund_required, one without a holdId as ignored; `async_payment_failed` makes no order. */
        post: operations["stripeWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/demo/holds/{holdId}/pay": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Demo mode only: pay for your hold through the webhook's own code path (a signed payment_intent.succeeded).
         * @description Roles: customer.
         */
        post: operations["demoPay"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/orders/{orderId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * An order (a customer sees only their own).
         * @description Roles: customer, service, admin.
         */
        get: operations["getOrder"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/queues": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The BullMQ queues on @bull-board/express (its pages and API live under this path); a bearer header or the cookie from /v1/admin/queues/session.
         * @description Roles: admin.
         */
        get: operations["adminQueues"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The checkout page (built by apps/web). */
        get: operations["checkoutPage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The admin console page (built by apps/web). */
        get: operations["adminPage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/events/{eventId}/waitlist": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The event's waiting list: live entries (waiting, offered) in join order, with position, customer, quantity, state and offer.
         * @description Roles: admin.
         */
        get: operations["adminWaitlist"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/events/{eventId}/waitlist/{entryId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Remove an entry with a reason (audited as waitlist.removed); an open offer is released and goes to the next in line.
         * @description Roles: admin.
         */
        delete: operations["adminRemoveWaitlistEntry"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/holds": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Holds by event and status (an active hold past its time is listed as expired), oldest first.
         * @description Roles: admin.
         */
        get: operations["adminListHolds"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/holds/{holdId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Force-release a hold with a reason; recorded in the audit log.
         * @description Roles: admin.
         */
        delete: operations["adminReleaseHold"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/orders": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Orders, optionally of one event and matching `q` (part of an order number, a customer id, or a seat label), oldest first.
         * @description Roles: admin.
         */
        get: operations["adminListOrders"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/payments": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Payments, refund-required ones first.
         * @description Roles: admin.
         */
        get: operations["adminListPayments"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/payments/{paymentId}/refund": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Record that a refund_required payment was refunded at the provider (who, when, a note); audited as payment.refunded.
         * @description Roles: admin.
         */
        post: operations["adminMarkRefunded"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/events/{eventId}/sales": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The sales dashboard's numbers: sold, held and available per tier and ticket type, revenue, holds and orders per minute (last 30 minutes).
         * @description Roles: admin.
         */
        get: operations["adminEventSales"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/audit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The audit log (admin releases, refund-required payments), oldest first.
         * @description Roles: admin.
         */
        get: operations["adminListAudit"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/orders/{orderId}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel an order with a reason: its seats and tickets go back (offered to the waiting lists first), its payment becomes refund_required (or refunded when `refunded`); audited as order.cancelled.
         * @description Roles: admin.
         */
        post: operations["adminCancelOrder"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Registered webhook endpoints, oldest first (never their secrets).
         * @description Roles: admin.
         */
        get: operations["adminListWebhooks"];
        put?: never;
        /**
         * Register a receiver of events (https only outside demo mode; no loopback, link-local or private address unless WEBHOOK_ALLOW_PRIVATE=true). The answer carries the signing secret, shown this once.
         * @description Roles: admin.
         */
        post: operations["adminCreateWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/webhooks/{webhookId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Delete an endpoint with its deliveries and their attempts; audited.
         * @description Roles: admin.
         */
        delete: operations["adminDeleteWebhook"];
        options?: never;
        head?: never;
        /**
         * Disable an endpoint (`{"enabled": false}`: no new deliveries, and its pending ones are given up) or enable it again; audited.
         * @description Roles: admin.
         */
        patch: operations["adminUpdateWebhook"];
        trace?: never;
    };
    "/v1/admin/webhooks/{webhookId}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * An endpoint's deliveries, newest first, each with its status and every attempt (when, outcome, the receiver's status code). Deliveries finished longer ago than the retention period (WEBHOOK_RETENTION_DAYS, default 30 days) are deleted with their attempts and no longer listed; pending and queued ones are listed whatever their age.
         * @description Roles: admin.
         */
        get: operations["adminListWebhookDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/reconcile": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Ask the worker to reconcile Redis against PostgreSQL now (body empty or `{}`).
         * @description Roles: admin.
         */
        post: operations["adminReconcile"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/reconcile/last": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The last reconciliation report: `{report}`.
         * @description Roles: admin.
         */
        get: operations["adminReconcileLast"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/queues/session": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Trade the admin's bearer token for an HttpOnly, SameSite=Strict cookie scoped to /admin/queues (at most an hour, never past the token), so a browser can open the queue dashboard.
         * @description Roles: admin.
         */
        post: operations["adminQueuesSession"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/events/{eventId}/waitlist": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Join the waiting list of a tier or ticket type; what comes back is offered in join order as a hold of the customer (entry.offer). Joining again answers the same entry.
         * @description Roles: customer.
         */
        post: operations["joinWaitlist"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/events/{eventId}/waitlist/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The customer's waiting-list entries of the event (every state), in join order.
         * @description Roles: customer.
         */
        get: operations["myWaitlist"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/events/{eventId}/waitlist/{entryId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Leave the waiting list; an open offer is released and goes to the next in line.
         * @description Roles: customer.
         */
        delete: operations["leaveWaitlist"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        Error: {
            error: {
                code: components["schemas"]["ErrorCode"];
                message: string;
                details?: unknown;
            };
        };
        /** @enum {string} */
        ErrorCode: "VALIDATION_FAILED" | "INVALID_SIGNATURE" | "UNAUTHORIZED" | "FORBIDDEN" | "NOT_FOUND" | "EVENT_NOT_FOUND" | "SEAT_NOT_FOUND" | "TICKET_TYPE_NOT_FOUND" | "HOLD_NOT_FOUND" | "ORDER_NOT_FOUND" | "SEATS_UNAVAILABLE" | "SOLD_OUT" | "HOLD_ALREADY_CONFIRMED" | "HOLD_EXPIRED" | "HOLD_NOT_ACTIVE" | "HOLD_EXTENSION_LIMIT" | "HOLD_TIME_CAP" | "SALES_CLOSED" | "PAYMENT_NOT_FOUND" | "PAYMENT_NOT_REFUNDABLE" | "PAYMENT_REJECTED" | "IDEMPOTENCY_IN_PROGRESS" | "PAYLOAD_TOO_LARGE" | "LIMIT_EXCEEDED" | "IDEMPOTENCY_KEY_REUSED" | "RATE_LIMITED" | "INTERNAL" | "SERVICE_UNAVAILABLE" | "OVERLOADED" | "STREAM_LIMIT_REACHED" | "WAITLIST_ENTRY_NOT_FOUND" | "WAITLIST_NOT_NEEDED" | "QUEUE_NOT_FOUND" | "QUEUE_PASS_REQUIRED" | "WEBHOOK_NOT_FOUND";
        Hold: {
            id: string;
            eventId: string;
            customerId: string;
            /** @enum {string} */
            status: "active" | "confirmed" | "expired" | "released";
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            expiresAt: string;
            items: components["schemas"]["HoldItem"][];
            totalCents: number;
            currency: string;
            orderId: string | null;
            releasedBy: ("customer" | "admin") | null;
            extensions: number;
        };
        HoldItem: {
            seatId: string;
            label: string;
            tier: string;
            priceCents: number;
            /** @constant */
            quantity: 1;
        } | {
            ticketTypeId: string;
            name: string;
            priceCents: number;
            quantity: number;
        };
        Order: {
            id: string;
            number: string;
            eventId: string;
            customerId: string;
            holdId: string;
            /** @enum {string} */
            status: "confirmed" | "cancelled";
            items: components["schemas"]["HoldItem"][];
            totalCents: number;
            currency: string;
            paymentReference: string;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            cancelledAt?: string;
        };
        Event: {
            id: string;
            name: string;
            /** Format: date-time */
            startsAt: string;
            currency: string;
            holdTtlSeconds: number;
            maxTicketsPerCustomer: number;
            maxHoldExtensions: number;
            maxHoldSeconds: number;
            waitlistOfferSeconds: number;
            /** @enum {string} */
            salesStatus: "draft" | "on_sale" | "closed";
            salesStartAt: string | null;
            salesEndAt: string | null;
            waitingRoom: {
                admitPerMinute: number;
                maxActive: number;
                passSeconds: number;
                preQueueSeconds: number;
                challengeBits: number;
            } | null;
            seatCount: number;
            ticketTypes: {
                id: string;
                name: string;
                priceCents: number;
                capacity: number;
                available: number;
            }[];
        };
        Seat: {
            id: string;
            label: string;
            section: string;
            row: string;
            number: number;
            tier: string;
            priceCents: number;
            /** @enum {string} */
            status: "available" | "held" | "sold";
        };
        Payment: {
            id: string;
            provider: string;
            reference: string;
            holdId: string | null;
            amountCents: number | null;
            currency: string | null;
            /** @enum {string} */
            status: "applied" | "refund_required" | "ignored";
            reason: string | null;
            orderId: string | null;
            /** Format: date-time */
            receivedAt: string;
            refund: {
                by: string;
                /** Format: date-time */
                at: string;
                note: string;
            } | null;
        };
        AuditEntry: {
            /** Format: date-time */
            at: string;
            actor: string;
            action: string;
            holdId: string | null;
            orderId: string | null;
            reason: string | null;
        };
        Sales: {
            eventId: string;
            currency: string;
            /** Format: date-time */
            asOf: string;
            orders: number;
            revenueCents: number;
            tiers: {
                tier: string;
                total: number;
                sold: number;
                held: number;
                available: number;
                revenueCents: number;
            }[];
            ticketTypes: {
                id: string;
                name: string;
                capacity: number;
                sold: number;
                held: number;
                available: number;
                revenueCents: number;
            }[];
            perMinute: {
                /** Format: date-time */
                minute: string;
                holds: number;
                orders: number;
            }[];
            waitlist: {
                waiting: number;
                offered: number;
                tiers: {
                    tier: string;
                    waiting: number;
                    offered: number;
                }[];
                ticketTypes: {
                    id: string;
                    waiting: number;
                    offered: number;
                }[];
            };
        };
        ReconcileReport: {
            /** Format: date-time */
            startedAt: string;
            /** Format: date-time */
            finishedAt: string;
            durationMs: number;
            events: number;
            repairs: {
                [key: string]: number;
            };
            entries: {
                /** @enum {string} */
                kind: "sold_set_missing" | "sold_set_extra" | "sold_seat_key" | "ga_counter" | "hold_restored" | "hold_ended" | "key_without_ttl" | "stale_lease" | "seat_index_rebuilt" | "free_set_missing" | "free_set_extra" | "bought_count" | "waitlist_restored";
                eventId: string;
                detail: string;
                count?: number;
            }[];
            errors: {
                eventId: string;
                message: string;
            }[];
        };
        EmptyBody: Record<string, never>;
        Webhook: {
            id: string;
            url: string;
            events: ("order.confirmed" | "hold.expired" | "hold.released" | "waitlist.offered" | "waitlist.offer_expired" | "payment.refund_required")[];
            enabled: boolean;
            /** Format: date-time */
            createdAt: string;
        };
        WebhookDelivery: {
            id: string;
            eventId: string;
            /** @enum {string} */
            type: "order.confirmed" | "hold.expired" | "hold.released" | "waitlist.offered" | "waitlist.offer_expired" | "payment.refund_required";
            /** @enum {string} */
            status: "pending" | "queued" | "succeeded" | "failed";
            attempts: {
                attempt: number;
                /** @enum {string} */
                status: "succeeded" | "failed";
                responseCode: number | null;
                error: string | null;
                /** Format: date-time */
                at: string;
                durationMs: number;
            }[];
            /** Format: date-time */
            createdAt: string;
            finishedAt: string | null;
        };
        HealthResponse: {
            /** @constant */
            status: "ok";
        };
        ReadyResponse: {
            /** @constant */
            status: "ready";
        };
        DemoTokenBody: {
            customerId: string;
            /**
             * @default customer
             * @enum {string}
             */
            role?: "customer" | "service" | "admin";
        };
        TokenResponse: {
            token: string;
        };
        CreateEventBody: {
            name: string;
            /** Format: date-time */
            startsAt: string;
            /** @default USD */
            currency?: string;
            /** @default 600 */
            holdTtlSeconds?: number;
            /** @default 10 */
            maxTicketsPerCustomer?: number;
            /** @default 1 */
            maxHoldExtensions?: number;
            maxHoldSeconds?: number;
            /** @default 1800 */
            waitlistOfferSeconds?: number;
            /**
             * @default on_sale
             * @enum {string}
             */
            salesStatus?: "draft" | "on_sale" | "closed";
            /** @default null */
            salesStartAt?: string | null;
            /** @default null */
            salesEndAt?: string | null;
            /** @default null */
            waitingRoom?: {
                admitPerMinute: number;
                maxActive: number;
                passSeconds: number;
                preQueueSeconds: number;
                /** @default 0 */
                challengeBits?: number;
            } | null;
            seats?: {
                section: string;
                row: string;
                number: number;
                tier: string;
                priceCents: number;
            }[];
            layout?: {
                sections: {
                    name: string;
                    rows: {
                        from: number;
                        to: number;
                        seatsPerRow: number;
                        tier: string;
                        priceCents: number;
                    }[];
                }[];
            };
            /** @default [] */
            ticketTypes?: {
                name: string;
                priceCents: number;
                capacity: number;
            }[];
        };
        EventResponse: {
            event: components["schemas"]["Event"];
        };
        UpdateEventBody: {
            name?: string;
            /** Format: date-time */
            startsAt?: string;
            holdTtlSeconds?: number;
            maxTicketsPerCustomer?: number;
            maxHoldExtensions?: number;
            maxHoldSeconds?: number;
            waitlistOfferSeconds?: number;
            /** @enum {string} */
            salesStatus?: "draft" | "on_sale" | "closed";
            salesStartAt?: string | null;
            salesEndAt?: string | null;
            waitingRoom?: {
                admitPerMinute: number;
                maxActive: number;
                passSeconds: number;
                preQueueSeconds: number;
                /** @default 0 */
                challengeBits?: number;
            } | null;
        };
        EventsResponse: {
            events: components["schemas"]["Event"][];
            nextCursor: string | null;
        };
        SeatsResponse: {
            seats: components["schemas"]["Seat"][];
        };
        JoinQueueBody: {
            nonce?: string;
        };
        QueueResponse: {
            queue: {
                /** @enum {string} */
                state: "waiting" | "admitted" | "ended" | "none";
                position: number;
                etaSeconds: number;
                admitted?: number;
                pass?: string;
                /** Format: date-time */
                passExpiresAt?: string;
            };
        };
        QueueAdminResponse: {
            waiting: number;
            admitted: number;
            active: number;
            admitPerMinute: number;
            maxActive: number;
            paused: boolean;
            medianWaitSeconds: number | null;
        };
        AdminUpdateQueueBody: {
            paused?: boolean;
            admitPerMinute?: number;
            maxActive?: number;
        };
        CreateHoldBody: {
            seatIds?: string[];
            tier?: string;
            ticketTypeId?: string;
            quantity?: number;
        };
        HoldResponse: {
            hold: components["schemas"]["Hold"];
        };
        ConfirmHoldBody: {
            paymentReference: string;
        };
        OrderResponse: {
            order: components["schemas"]["Order"];
        };
        StripeWebhookBody: {
            id: string;
            type: string;
            data: {
                object: {
                    [key: string]: unknown;
                };
            };
        };
        ReceivedResponse: {
            /** @constant */
            received: true;
        };
        AdminWaitlistResponse: {
            entries: {
                id: string;
                /** @enum {string} */
                state: "waiting" | "offered" | "purchased" | "expired" | "left" | "removed";
                position: number | null;
                tier?: string;
                ticketTypeId?: string;
                quantity: number;
                /** Format: date-time */
                createdAt: string;
                offer: {
                    holdId: string;
                    /** Format: date-time */
                    expiresAt: string;
                } | null;
                customerId: string;
            }[];
        };
        AdminRemoveWaitlistEntryBody: {
            reason: string;
        };
        AdminWaitlistEntryResponse: {
            entry: {
                id: string;
                /** @enum {string} */
                state: "waiting" | "offered" | "purchased" | "expired" | "left" | "removed";
                position: number | null;
                tier?: string;
                ticketTypeId?: string;
                quantity: number;
                /** Format: date-time */
                createdAt: string;
                offer: {
                    holdId: string;
                    /** Format: date-time */
                    expiresAt: string;
                } | null;
                customerId: string;
            };
        };
        HoldsResponse: {
            holds: components["schemas"]["Hold"][];
            nextCursor: string | null;
        };
        OrdersResponse: {
            orders: components["schemas"]["Order"][];
            nextCursor: string | null;
        };
        PaymentsResponse: {
            payments: components["schemas"]["Payment"][];
            nextCursor: string | null;
        };
        AdminMarkRefundedBody: {
            note: string;
        };
        PaymentResponse: {
            payment: components["schemas"]["Payment"];
        };
        SalesResponse: {
            sales: components["schemas"]["Sales"];
        };
        AuditResponse: {
            entries: components["schemas"]["AuditEntry"][];
            nextCursor: string | null;
        };
        AdminCancelOrderBody: {
            reason: string;
            /** @default false */
            refunded?: boolean;
        };
        AdminCreateWebhookBody: {
            url: string;
            events: ("order.confirmed" | "hold.expired" | "hold.released" | "waitlist.offered" | "waitlist.offer_expired" | "payment.refund_required")[];
        };
        AdminCreateWebhook201: {
            webhook: {
                id: string;
                url: string;
                events: ("order.confirmed" | "hold.expired" | "hold.released" | "waitlist.offered" | "waitlist.offer_expired" | "payment.refund_required")[];
                enabled: boolean;
                /** Format: date-time */
                createdAt: string;
                secret: string;
            };
        };
        AdminListWebhooks200: {
            webhooks: components["schemas"]["Webhook"][];
            nextCursor: string | null;
        };
        AdminUpdateWebhookBody: {
            enabled: boolean;
        };
        AdminUpdateWebhook200: {
            webhook: components["schemas"]["Webhook"];
        };
        AdminListWebhookDeliveries200: {
            deliveries: components["schemas"]["WebhookDelivery"][];
            nextCursor: string | null;
        };
        ReconcileQueuedResponse: {
            jobId: string;
            /** @constant */
            status: "queued";
        };
        ReconcileReportResponse: {
            report: components["schemas"]["ReconcileReport"] | null;
        };
        QueuesSessionResponse: {
            url: string;
            expiresInSeconds: number;
        };
        JoinWaitlistBody: {
            tier?: string;
            ticketTypeId?: string;
            quantity: number;
        };
        WaitlistEntryResponse: {
            entry: {
                id: string;
                /** @enum {string} */
                state: "waiting" | "offered" | "purchased" | "expired" | "left" | "removed";
                position: number | null;
                tier?: string;
                ticketTypeId?: string;
                quantity: number;
                /** Format: date-time */
                createdAt: string;
                offer: {
                    holdId: string;
                    /** Format: date-time */
                    expiresAt: string;
                } | null;
            };
        };
        WaitlistEntriesResponse: {
            entries: {
                id: string;
                /** @enum {string} */
                state: "waiting" | "offered" | "purchased" | "expired" | "left" | "removed";
                position: number | null;
                tier?: string;
                ticketTypeId?: string;
                quantity: number;
                /** Format: date-time */
                createdAt: string;
                offer: {
                    holdId: string;
                    /** Format: date-time */
                    expiresAt: string;
                } | null;
            }[];
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type SchemaError = components['schemas']['Error'];
export type SchemaErrorCode = components['schemas']['ErrorCode'];
export type SchemaHold = components['schemas']['Hold'];
export type SchemaHoldItem = components['schemas']['HoldItem'];
export type SchemaOrder = components['schemas']['Order'];
export type SchemaEvent = components['schemas']['Event'];
export type SchemaSeat = components['schemas']['Seat'];
export type SchemaPayment = components['schemas']['Payment'];
export type SchemaAuditEntry = components['schemas']['AuditEntry'];
export type SchemaSales = components['schemas']['Sales'];
export type SchemaReconcileReport = components['schemas']['ReconcileReport'];
export type SchemaEmptyBody = components['schemas']['EmptyBody'];
export type SchemaWebhook = components['schemas']['Webhook'];
export type SchemaWebhookDelivery = components['schemas']['WebhookDelivery'];
export type SchemaHealthResponse = components['schemas']['HealthResponse'];
export type SchemaReadyResponse = components['schemas']['ReadyResponse'];
export type SchemaDemoTokenBody = components['schemas']['DemoTokenBody'];
export type SchemaTokenResponse = components['schemas']['TokenResponse'];
export type SchemaCreateEventBody = components['schemas']['CreateEventBody'];
export type SchemaEventResponse = components['schemas']['EventResponse'];
export type SchemaUpdateEventBody = components['schemas']['UpdateEventBody'];
export type SchemaEventsResponse = components['schemas']['EventsResponse'];
export type SchemaSeatsResponse = components['schemas']['SeatsResponse'];
export type SchemaJoinQueueBody = components['schemas']['JoinQueueBody'];
export type SchemaQueueResponse = components['schemas']['QueueResponse'];
export type SchemaQueueAdminResponse = components['schemas']['QueueAdminResponse'];
export type SchemaAdminUpdateQueueBody = components['schemas']['AdminUpdateQueueBody'];
export type SchemaCreateHoldBody = components['schemas']['CreateHoldBody'];
export type SchemaHoldResponse = components['schemas']['HoldResponse'];
export type SchemaConfirmHoldBody = components['schemas']['ConfirmHoldBody'];
export type SchemaOrderResponse = components['schemas']['OrderResponse'];
export type SchemaStripeWebhookBody = components['schemas']['StripeWebhookBody'];
export type SchemaReceivedResponse = components['schemas']['ReceivedResponse'];
export type SchemaAdminWaitlistResponse = components['schemas']['AdminWaitlistResponse'];
export type SchemaAdminRemoveWaitlistEntryBody = components['schemas']['AdminRemoveWaitlistEntryBody'];
export type SchemaAdminWaitlistEntryResponse = components['schemas']['AdminWaitlistEntryResponse'];
export type SchemaHoldsResponse = components['schemas']['HoldsResponse'];
export type SchemaOrdersResponse = components['schemas']['OrdersResponse'];
export type SchemaPaymentsResponse = components['schemas']['PaymentsResponse'];
export type SchemaAdminMarkRefundedBody = components['schemas']['AdminMarkRefundedBody'];
export type SchemaPaymentResponse = components['schemas']['PaymentResponse'];
export type SchemaSalesResponse = components['schemas']['SalesResponse'];
export type SchemaAuditResponse = components['schemas']['AuditResponse'];
export type SchemaAdminCancelOrderBody = components['schemas']['AdminCancelOrderBody'];
export type SchemaAdminCreateWebhookBody = components['schemas']['AdminCreateWebhookBody'];
export type SchemaAdminCreateWebhook201 = components['schemas']['AdminCreateWebhook201'];
export type SchemaAdminListWebhooks200 = components['schemas']['AdminListWebhooks200'];
export type SchemaAdminUpdateWebhookBody = components['schemas']['AdminUpdateWebhookBody'];
export type SchemaAdminUpdateWebhook200 = components['schemas']['AdminUpdateWebhook200'];
export type SchemaAdminListWebhookDeliveries200 = components['schemas']['AdminListWebhookDeliveries200'];
export type SchemaReconcileQueuedResponse = components['schemas']['ReconcileQueuedResponse'];
export type SchemaReconcileReportResponse = components['schemas']['ReconcileReportResponse'];
export type SchemaQueuesSessionResponse = components['schemas']['QueuesSessionResponse'];
export type SchemaJoinWaitlistBody = components['schemas']['JoinWaitlistBody'];
export type SchemaWaitlistEntryResponse = components['schemas']['WaitlistEntryResponse'];
export type SchemaWaitlistEntriesResponse = components['schemas']['WaitlistEntriesResponse'];
export type $defs = Record<string, never>;
export interface operations {
    health: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description ok */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HealthResponse"];
                };
            };
        };
    };
    ready: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description ready */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ReadyResponse"];
                };
            };
            /** @description SERVICE_UNAVAILABLE naming what is down */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    metrics: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description metrics */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
        };
    };
    openapi: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the OpenAPI document */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": string;
                };
            };
            /** @description VALIDATION_FAILED: `details.fields` names each field and why */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    docs: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description HTML */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            /** @description VALIDATION_FAILED: `details.fields` names each field and why */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    demoToken: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["DemoTokenBody"];
            };
        };
        responses: {
            /** @description a token */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TokenResponse"];
                };
            };
            /** @description VALIDATION_FAILED: `details.fields` names each field and why */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description NOT_FOUND outside demo mode */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: the body is larger than 100 KiB (102400 bytes; details.limitBytes) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createEvent: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description Up to 62428388 bytes (59.5 MiB); every other endpoint reads up to 102400. */
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateEventBody"];
            };
        };
        responses: {
            /** @description created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EventResponse"];
                };
            };
            /** @description VALIDATION_FAILED: `details.fields` names each field and why */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: no token, a bad signature, an expired token…; `details.reason` says which */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the role may not call this endpoint */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: the body is larger than 59.5 MiB (62428388 bytes; details.limitBytes) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: PostgreSQL or Redis is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updateEvent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                eventId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UpdateEventBody"];
            };
        };
        responses: {
            /** @description the event as it is now */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EventResponse"];
                };
            };
            /** @description VALIDATION_FAILED: `details.fields` names each field and why */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: no token, a bad signature, an expired token…; `details.reason` says which */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the role may not call this endpoint */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description EVENT_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: the body is larger than 100 KiB (102400 bytes; details.limitBytes) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: PostgreSQL or Redis is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listEvents: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description a page of events */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EventsResponse"];
                };
            };
            /** @description VALIDATION_FAILED: `details.fields` names each field and why */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: PostgreSQL or Redis is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getEvent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                eventId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the event */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EventResponse"];
                };
            };
            /** @description VALIDATION_FAILED: `details.fields` names each field and why */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description EVENT_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: PostgreSQL or Redis is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listSeats: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                eventId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the seat map */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SeatsResponse"];
                };
            };
            /** @description VALIDATION_FAILED: `details.fields` names each field and why */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description EVENT_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: PostgreSQL or Redis is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    streamEvent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                eventId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description an event stream */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                };
            };
            /** @description VALIDATION_FAILED: `details.fields` names each field and why */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description EVENT_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: Redis (or PostgreSQL) is unavailable; or STREAM_LIMIT_REACHED: too many streams from this address or on the server (Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    joinQueue: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                eventId: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["JoinQueueBody"];
            };
        };
        responses: {
            /** @description where the customer stands (pass and passExpiresAt once admitted) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["QueueResponse"];
                };
            };
            /** @description VALIDATION_FAILED: also a missing, wrong or reused proof of work (details.fields path nonce) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: no token, a bad signature, an expired token…; `details.reason` says which */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the role may not call this endpoint */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description EVENT_NOT_FOUND, or QUEUE_NOT_FOUND: the event has no waiting room */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SALES_CLOSED: before salesStartAt − preQueueSeconds, from salesEndAt on, or the event is a draft or closed (details.salesStatus, salesStartAt, salesEndAt, serverTime) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: the body is larger than 100 KiB (102400 bytes; details.limitBytes) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: PostgreSQL or Redis is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getQueueStanding: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                eventId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description where the customer stands */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["QueueResponse"];
                };
            };
            /** @description VALIDATION_FAILED: `details.fields` names each field and why */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: no token, a bad signature, an expired token…; `details.reason` says which */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the role may not call this endpoint */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description EVENT_NOT_FOUND, or QUEUE_NOT_FOUND: the event has no waiting room */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: the body is larger than 100 KiB (102400 bytes; details.limitBytes) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: PostgreSQL or Redis is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    adminGetQueue: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                eventId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the room */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["QueueAdminResponse"];
                };
            };
            /** @description VALIDATION_FAILED: `details.fields` names each field and why */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: no token, a bad signature, an expired token…; `details.reason` says which */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the role may not call this endpoint */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description EVENT_NOT_FOUND, or QUEUE_NOT_FOUND: the event has no waiting room */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: the body is larger than 100 KiB (102400 bytes; details.limitBytes) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: PostgreSQL or Redis is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    adminUpdateQueue: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                eventId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AdminUpdateQueueBody"];
            };
        };
        responses: {
            /** @description the room as it is now */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["QueueAdminResponse"];
                };
            };
            /** @description VALIDATION_FAILED: `details.fields` names each field and why */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: no token, a bad signature, an expired token…; `details.reason` says which */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the role may not call this endpoint */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description EVENT_NOT_FOUND, or QUEUE_NOT_FOUND: the event has no waiting room */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: the body is larger than 100 KiB (102400 bytes; details.limitBytes) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: PostgreSQL or Redis is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createHold: {
        parameters: {
            query?: never;
            header?: {
                /** @description The queue pass the waiting room gave (POST /v1/events/{eventId}/queue); needed while the event has a waiting room. */
                "Holdfast-Queue-Pass"?: string;
                /** @description Replays the first answer for 24 hours (header `Idempotent-Replayed: true`) when the same principal sends the same key and body; 422 IDEMPOTENCY_KEY_REUSED with another body; 409 IDEMPOTENCY_IN_PROGRESS while the first runs. 5xx and 429 answers are not kept. A request that has not answered within its lease (a hold: HOLD_IDEMPOTENCY_LEASE_MS, 10 s; a confirm: 60 s) no longer blocks the key: the next request with it runs in its place, and a hold's gets the hold the first took, if it took one. */
                "Idempotency-Key"?: string;
            };
            path: {
                eventId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateHoldBody"];
            };
        };
        responses: {
            /** @description held */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HoldResponse"];
                };
            };
            /** @description VALIDATION_FAILED: `details.fields` names each field and why */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: no token, a bad signature, an expired token…; `details.reason` says which */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN (not a customer), or QUEUE_PASS_REQUIRED: the event has a waiting room and the request carries no live pass of this customer and event (details.reason: missing, forged, other_event, other_customer, ended); nothing held */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description EVENT_NOT_FOUND, SEAT_NOT_FOUND or TICKET_TYPE_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SEATS_UNAVAILABLE (details.seatIds), SOLD_OUT, SALES_CLOSED (draft or closed, or outside [salesStartAt, salesEndAt): details.salesStatus, salesStartAt, salesEndAt, serverTime), or IDEMPOTENCY_IN_PROGRESS */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: the body is larger than 100 KiB (102400 bytes; details.limitBytes) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description LIMIT_EXCEEDED, or IDEMPOTENCY_KEY_REUSED */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description RATE_LIMITED, with Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: PostgreSQL or Redis is unavailable, or details.reason hold_backlog_full (holds not yet written to PostgreSQL reached HOLD_OUTBOX_MAX_PENDING), with Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getHold: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                holdId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the hold */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HoldResponse"];
                };
            };
            /** @description VALIDATION_FAILED: `details.fields` names each field and why */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: no token, a bad signature, an expired token…; `details.reason` says which */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the role may not call this endpoint */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description HOLD_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: the body is larger than 100 KiB (102400 bytes; details.limitBytes) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: PostgreSQL or Redis is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    releaseHold: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                holdId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description released (or as it was, when already released or expired) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HoldResponse"];
                };
            };
            /** @description VALIDATION_FAILED: `details.fields` names each field and why */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: no token, a bad signature, an expired token…; `details.reason` says which */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the role may not call this endpoint */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description HOLD_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description HOLD_ALREADY_CONFIRMED */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: the body is larger than 100 KiB (102400 bytes; details.limitBytes) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: PostgreSQL or Redis is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    extendHold: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                holdId: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["EmptyBody"];
            };
        };
        responses: {
            /** @description extended */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HoldResponse"];
                };
            };
            /** @description VALIDATION_FAILED: `details.fields` names each field and why */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: no token, a bad signature, an expired token…; `details.reason` says which */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the role may not call this endpoint */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description HOLD_NOT_FOUND (also another customer's hold) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description HOLD_EXPIRED, HOLD_NOT_ACTIVE (released), HOLD_ALREADY_CONFIRMED, HOLD_EXTENSION_LIMIT (details.maxHoldExtensions), or HOLD_TIME_CAP (details.maxHoldSeconds, expiresAt) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: the body is larger than 100 KiB (102400 bytes; details.limitBytes) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: PostgreSQL or Redis is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    confirmHold: {
        parameters: {
            query?: never;
            header?: {
                /** @description Replays the first answer for 24 hours (header `Idempotent-Replayed: true`) when the same principal sends the same key and body; 422 IDEMPOTENCY_KEY_REUSED with another body; 409 IDEMPOTENCY_IN_PROGRESS while the first runs. 5xx and 429 answers are not kept. A request that has not answered within its lease (a hold: HOLD_IDEMPOTENCY_LEASE_MS, 10 s; a confirm: 60 s) no longer blocks the key: the next request with it runs in its place, and a hold's gets the hold the first took, if it took one. */
                "Idempotency-Key"?: string;
            };
            path: {
                holdId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ConfirmHoldBody"];
            };
        };
        responses: {
            /** @description the order this hold already became */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OrderResponse"];
                };
            };
            /** @description the order, created now */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OrderResponse"];
                };
            };
            /** @description VALIDATION_FAILED: `details.fields` names each field and why */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: no token, a bad signature, an expired token…; `details.reason` says which */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the role may not call this endpoint */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description HOLD_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description HOLD_EXPIRED (its items are gone), HOLD_NOT_ACTIVE (released), or IDEMPOTENCY_IN_PROGRESS */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: the body is larger than 100 KiB (102400 bytes; details.limitBytes) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description LIMIT_EXCEEDED (the customer would own more than the event's maxTicketsPerCustomer: details.limit, details.inUse; nothing sold, the hold is over), or IDEMPOTENCY_KEY_REUSED */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description OVERLOADED (too many confirms waiting; nothing was done, retry after Retry-After seconds), or SERVICE_UNAVAILABLE: PostgreSQL or Redis is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    stripeWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">` keyed with STRIPE_WEBHOOK_SECRET; 300 s tolerance. */
                "Stripe-Signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["StripeWebhookBody"];
            };
        };
        responses: {
            /** @description received (also duplicates and unhandled types) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ReceivedResponse"];
                };
            };
            /** @description INVALID_SIGNATURE, or VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: the body is larger than 100 KiB (102400 bytes; details.limitBytes) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description OVERLOADED (too many confirms waiting; nothing was done, retry after Retry-After seconds), or SERVICE_UNAVAILABLE: PostgreSQL or Redis is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    demoPay: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                holdId: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["EmptyBody"];
            };
        };
        responses: {
            /** @description the order this hold already became */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OrderResponse"];
                };
            };
            /** @description the order */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OrderResponse"];
                };
            };
            /** @description VALIDATION_FAILED: `details.fields` names each field and why */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: no token, a bad signature, an expired token…; `details.reason` says which */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the role may not call this endpoint */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description HOLD_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description PAYMENT_REJECTED (recorded for a refund) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: the body is larger than 100 KiB (102400 bytes; details.limitBytes) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: PostgreSQL or Redis is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getOrder: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                orderId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the order */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OrderResponse"];
                };
            };
            /** @description VALIDATION_FAILED: `details.fields` names each field and why */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: no token, a bad signature, an expired token…; `details.reason` says which */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the role may not call this endpoint */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description ORDER_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: the body is larger than 100 KiB (102400 bytes; details.limitBytes) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: PostgreSQL or Redis is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    adminQueues: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description HTML */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            /** @description to /admin/queues/ */
            302: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description UNAUTHORIZED: no token, a bad signature, an expired token…; `details.reason` says which */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the role may not call this endpoint */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    checkoutPage: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description HTML */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            /** @description NOT_FOUND when the web app is not built */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    adminPage: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description HTML */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            /** @description NOT_FOUND when the web app is not built */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    adminWaitlist: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                eventId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the entries */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AdminWaitlistResponse"];
                };
            };
            /** @description VALIDATION_FAILED: `details.fields` names each field and why */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: no token, a bad signature, an expired token…; `details.reason` says which */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the role may not call this endpoint */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description EVENT_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: the body is larger than 100 KiB (102400 bytes; details.limitBytes) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: PostgreSQL or Redis is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    adminRemoveWaitlistEntry: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                eventId: string;
                entryId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AdminRemoveWaitlistEntryBody"];
            };
        };
        responses: {
            /** @description the entry, removed (or as it was when it had ended) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AdminWaitlistEntryResponse"];
                };
            };
            /** @description VALIDATION_FAILED: `details.fields` names each field and why */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: no token, a bad signature, an expired token…; `details.reason` says which */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the role may not call this endpoint */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description WAITLIST_ENTRY_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: the body is larger than 100 KiB (102400 bytes; details.limitBytes) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: PostgreSQL or Redis is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    adminListHolds: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
                eventId?: string;
                status?: "active" | "confirmed" | "expired" | "released";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description a page of holds */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HoldsResponse"];
                };
            };
            /** @description VALIDATION_FAILED: `details.fields` names each field and why */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: no token, a bad signature, an expired token…; `details.reason` says which */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the role may not call this endpoint */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: the body is larger than 100 KiB (102400 bytes; details.limitBytes) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: PostgreSQL or Redis is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    adminReleaseHold: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                holdId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AdminRemoveWaitlistEntryBody"];
            };
        };
        responses: {
            /** @description released */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HoldResponse"];
                };
            };
            /** @description VALIDATION_FAILED: `details.fields` names each field and why */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: no token, a bad signature, an expired token…; `details.reason` says which */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the role may not call this endpoint */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description HOLD_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description HOLD_ALREADY_CONFIRMED */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: the body is larger than 100 KiB (102400 bytes; details.limitBytes) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: PostgreSQL or Redis is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    adminListOrders: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
                eventId?: string;
                q?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description a page of orders */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OrdersResponse"];
                };
            };
            /** @description VALIDATION_FAILED: `details.fields` names each field and why */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: no token, a bad signature, an expired token…; `details.reason` says which */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the role may not call this endpoint */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: the body is larger than 100 KiB (102400 bytes; details.limitBytes) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: PostgreSQL or Redis is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    adminListPayments: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
                status?: "applied" | "refund_required" | "ignored";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description a page of payments */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PaymentsResponse"];
                };
            };
            /** @description VALIDATION_FAILED: `details.fields` names each field and why */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: no token, a bad signature, an expired token…; `details.reason` says which */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the role may not call this endpoint */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: the body is larger than 100 KiB (102400 bytes; details.limitBytes) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: PostgreSQL or Redis is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    adminMarkRefunded: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                paymentId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AdminMarkRefundedBody"];
            };
        };
        responses: {
            /** @description the payment with its refund */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PaymentResponse"];
                };
            };
            /** @description VALIDATION_FAILED: `details.fields` names each field and why */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: no token, a bad signature, an expired token…; `details.reason` says which */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the role may not call this endpoint */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description PAYMENT_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description PAYMENT_NOT_REFUNDABLE (details.reason: not_owed or already_refunded) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: the body is larger than 100 KiB (102400 bytes; details.limitBytes) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: PostgreSQL or Redis is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    adminEventSales: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                eventId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the numbers */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SalesResponse"];
                };
            };
            /** @description VALIDATION_FAILED: `details.fields` names each field and why */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: no token, a bad signature, an expired token…; `details.reason` says which */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the role may not call this endpoint */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description EVENT_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: the body is larger than 100 KiB (102400 bytes; details.limitBytes) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: PostgreSQL or Redis is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    adminListAudit: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
                eventId?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description a page of entries */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuditResponse"];
                };
            };
            /** @description VALIDATION_FAILED: `details.fields` names each field and why */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: no token, a bad signature, an expired token…; `details.reason` says which */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the role may not call this endpoint */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: the body is larger than 100 KiB (102400 bytes; details.limitBytes) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: PostgreSQL or Redis is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    adminCancelOrder: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                orderId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AdminCancelOrderBody"];
            };
        };
        responses: {
            /** @description the order, cancelled (or as it was when cancelled already) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OrderResponse"];
                };
            };
            /** @description VALIDATION_FAILED: `details.fields` names each field and why */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: no token, a bad signature, an expired token…; `details.reason` says which */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the role may not call this endpoint */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description ORDER_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: the body is larger than 100 KiB (102400 bytes; details.limitBytes) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: PostgreSQL or Redis is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    adminListWebhooks: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description a page of endpoints */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AdminListWebhooks200"];
                };
            };
            /** @description VALIDATION_FAILED: `details.fields` names each field and why */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: no token, a bad signature, an expired token…; `details.reason` says which */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the role may not call this endpoint */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: the body is larger than 100 KiB (102400 bytes; details.limitBytes) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: PostgreSQL or Redis is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    adminCreateWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AdminCreateWebhookBody"];
            };
        };
        responses: {
            /** @description the endpoint, with its signing secret */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AdminCreateWebhook201"];
                };
            };
            /** @description VALIDATION_FAILED: a field is not valid, or the URL is refused (details.fields names `url` and why: not https, does not resolve, resolves to a private address) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: no token, a bad signature, an expired token…; `details.reason` says which */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the role may not call this endpoint */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: the body is larger than 100 KiB (102400 bytes; details.limitBytes) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: PostgreSQL or Redis is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    adminDeleteWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                webhookId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the endpoint as it was */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AdminUpdateWebhook200"];
                };
            };
            /** @description VALIDATION_FAILED: `details.fields` names each field and why */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: no token, a bad signature, an expired token…; `details.reason` says which */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the role may not call this endpoint */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description WEBHOOK_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: the body is larger than 100 KiB (102400 bytes; details.limitBytes) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: PostgreSQL or Redis is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    adminUpdateWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                webhookId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AdminUpdateWebhookBody"];
            };
        };
        responses: {
            /** @description the endpoint */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AdminUpdateWebhook200"];
                };
            };
            /** @description VALIDATION_FAILED: `details.fields` names each field and why */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: no token, a bad signature, an expired token…; `details.reason` says which */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the role may not call this endpoint */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description WEBHOOK_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: the body is larger than 100 KiB (102400 bytes; details.limitBytes) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: PostgreSQL or Redis is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    adminListWebhookDeliveries: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
            };
            header?: never;
            path: {
                webhookId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description a page of deliveries */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AdminListWebhookDeliveries200"];
                };
            };
            /** @description VALIDATION_FAILED: `details.fields` names each field and why */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: no token, a bad signature, an expired token…; `details.reason` says which */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the role may not call this endpoint */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description WEBHOOK_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: the body is larger than 100 KiB (102400 bytes; details.limitBytes) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: PostgreSQL or Redis is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    adminReconcile: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["EmptyBody"];
            };
        };
        responses: {
            /** @description queued: `{jobId, status}` */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ReconcileQueuedResponse"];
                };
            };
            /** @description VALIDATION_FAILED: `details.fields` names each field and why */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: no token, a bad signature, an expired token…; `details.reason` says which */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the role may not call this endpoint */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: the body is larger than 100 KiB (102400 bytes; details.limitBytes) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: PostgreSQL or Redis is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    adminReconcileLast: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the report */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ReconcileReportResponse"];
                };
            };
            /** @description VALIDATION_FAILED: `details.fields` names each field and why */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: no token, a bad signature, an expired token…; `details.reason` says which */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the role may not call this endpoint */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: the body is larger than 100 KiB (102400 bytes; details.limitBytes) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: PostgreSQL or Redis is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    adminQueuesSession: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["EmptyBody"];
            };
        };
        responses: {
            /** @description `{url, expiresInSeconds}` and a Set-Cookie header */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["QueuesSessionResponse"];
                };
            };
            /** @description VALIDATION_FAILED: `details.fields` names each field and why */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: no token, a bad signature, an expired token…; `details.reason` says which */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the role may not call this endpoint */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: the body is larger than 100 KiB (102400 bytes; details.limitBytes) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE (`details.reason: "issuer_unavailable"`): the token issuer (AUTH_ISSUER) could not be reached to check the token; retry after Retry-After seconds */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    joinWaitlist: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                eventId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["JoinWaitlistBody"];
            };
        };
        responses: {
            /** @description the customer's live entry for this tier or ticket type */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WaitlistEntryResponse"];
                };
            };
            /** @description in line (or offered at once when enough came back meanwhile) */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WaitlistEntryResponse"];
                };
            };
            /** @description VALIDATION_FAILED: `details.fields` names each field and why */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: no token, a bad signature, an expired token…; `details.reason` says which */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the role may not call this endpoint */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description EVENT_NOT_FOUND or TICKET_TYPE_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description WAITLIST_NOT_NEEDED (nobody waits and enough is free: hold it; details.available) or SALES_CLOSED */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: the body is larger than 100 KiB (102400 bytes; details.limitBytes) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: PostgreSQL or Redis is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    myWaitlist: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                eventId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the entries */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WaitlistEntriesResponse"];
                };
            };
            /** @description VALIDATION_FAILED: `details.fields` names each field and why */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: no token, a bad signature, an expired token…; `details.reason` says which */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the role may not call this endpoint */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description EVENT_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: the body is larger than 100 KiB (102400 bytes; details.limitBytes) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: PostgreSQL or Redis is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    leaveWaitlist: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                eventId: string;
                entryId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the entry, left (or as it was when it had ended) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WaitlistEntryResponse"];
                };
            };
            /** @description VALIDATION_FAILED: `details.fields` names each field and why */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: no token, a bad signature, an expired token…; `details.reason` says which */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the role may not call this endpoint */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description WAITLIST_ENTRY_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: the body is larger than 100 KiB (102400 bytes; details.limitBytes) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: PostgreSQL or Redis is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
}

/** The operations that take an `Idempotency-Key` header, as `METHOD /path/{param}`. */
export const idempotentOperations: readonly string[] = [
  'POST /v1/events/{eventId}/holds',
  'POST /v1/holds/{holdId}/confirm'
];
