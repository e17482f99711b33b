// The API alone as a child process, for fault tests that stop or kill it:
// `node --import tsx packages/test-kit/src/api-process.main.ts` (PORT from the environment; 0 for any free
// port, printed as `listening <port>`).
import { loadConfig } from '@holdfast/config';
import { createApiRuntime } from '@holdfast/api';

async function main() {
  const config = loadConfig();
  const rt = await createApiRuntime(config);
  const server = rt.app.listen(config.port, '127.0.0.1', () => {
    // The port it got: with PORT=0 (ApiProcess.start), the system's choice.
    const address = server.address();
    process.stdout.write(`listening ${address && typeof address === 'object' ? address.port : config.port}\n`);
  });
  const stop = () => {
    server.closeAllConnections();
    server.close(() => void rt.close().then(() => process.exit(0)));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((err: Error) => {
  process.stderr.write(`api could not start: ${err.message}\n`);
  process.exit(1);
});
