// One /metrics over several API processes (node:cluster): the process that
// answers the scrape asks the supervising (primary) process, which gathers every
// API process's registry with prom-client's AggregatorRegistry and adds them up.
import cluster from 'node:cluster';
import { randomBytes } from 'node:crypto';
import { AggregatorRegistry } from 'prom-client';
import type { Metrics } from './metrics';

const REQ = 'holdfast:metrics-req';
const RES = 'holdfast:metrics-res';

interface MetricsMessage { type: string; id: string; text?: string; error?: string }

/** In the primary: answers the API processes' requests for everyone's metrics. */
export function serveClusterMetrics(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker, message: MetricsMessage) => {
    if (message?.type !== REQ) return;
    aggregator.clusterMetrics().then(
      (text) => worker.isConnected() && worker.send({ type: RES, id: message.id, text }),
      (err: Error) => worker.isConnected() && worker.send({ type: RES, id: message.id, error: err.message }),
    );
  });
}

/** In an API process: gives the primary this registry, and makes /metrics answer everyone's sum. */
export function joinClusterMetrics(metrics: Metrics): void {
  new AggregatorRegistry(); // installs prom-client's answer to the primary's requests
  AggregatorRegistry.setRegistries([metrics.registry]);
  const pending = new Map<string, { resolve(text: string): void; reject(err: Error): void }>();
  process.on('message', (message: MetricsMessage) => {
    if (message?.type !== RES) return;
    const p = pending.get(message.id);
    if (!p) return;
    pending.delete(message.id);
    if (message.error) p.reject(new Error(message.error));
    else p.resolve(message.text ?? '');
  });
  metrics.text = () => new Promise<string>((resolve, reject) => {
    const id = randomBytes(8).toString('hex');
    const timer = setTimeout(() => {
      pending.delete(id);
      reject(new Error('the supervising process did not answer with the metrics'));
    }, 6000);
    pending.set(id, {
      resolve: (t) => { clearTimeout(timer); resolve(t); },
      reject: (e) => { clearTimeout(timer); reject(e); },
    });
    process.send!({ type: REQ, id });
  });
}
