/** Whether this process records spans: set by startTelemetry once the SDK is registered. */
export const tracing = { enabled: false };
