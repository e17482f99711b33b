-- A payment that is not holdfast's (no holdId: another product on the same Stripe
-- account) is recorded as ignored, not as owed a refund. Declared first, so the
-- admin list's `status desc` keeps refunds first, then applied, then ignored.
ALTER TYPE "PaymentStatus" ADD VALUE IF NOT EXISTS 'IGNORED' BEFORE 'APPLIED';
