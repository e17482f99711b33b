// The SDK as startTelemetry registers it: spans go out over OTLP/HTTP in the
// default protocol (protobuf) to <endpoint>/v1/traces, and the trace context a
// job would carry names the active span's trace.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { startOtlpReceiver } from '@holdfast/test-kit';
import { injectTraceContext, startTelemetry, tracingEnabled, withSpan } from '../src';

const FIXTURE = path.join(__dirname, 'fixtures', 'export-one-span.ts');

test('when no endpoint is set, then startTelemetry starts nothing and spans stay off', async () => {
  expect(startTelemetry({ endpoint: null, protocol: 'http/protobuf', serviceName: null }, 'holdfast-test')).toBeNull();
  expect(tracingEnabled()).toBe(false);
  expect(await withSpan('off', undefined, async (span) => span)).toBeNull();
  expect(injectTraceContext()).toBeUndefined();
});

test('when an endpoint is set with the default protocol, then the span is exported as protobuf to <endpoint>/v1/traces, and a job scheduled in it carries its trace', async () => {
  const receiver = await startOtlpReceiver({ keep: false });
  try {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', FIXTURE, `${receiver.endpoint}/`, 'http/protobuf'], { timeout: 30_000 });
    const carried = JSON.parse(stdout) as { metadata: string; traceId: string };
    expect(JSON.parse(carried.metadata)).toEqual({ traceparent: expect.stringMatching(new RegExp(`^00-${carried.traceId}-[0-9a-f]{16}-01$`)) });
    expect(receiver.requests).toBe(1);
    expect(receiver.contentTypes).toEqual(['application/x-protobuf']);
  } finally {
    await receiver.close();
  }
}, 60_000);
