import { resolve } from 'node:path';
import { defineConfig } from 'vite';
import preact from '@preact/preset-vite';

/**
 * Two HTML entry points: index.html (checkout, served at `/`) and admin.html
 * (served at `/admin`). In dev, `/v1` is proxied to the API on port 3000.
 */
export default defineConfig({
  plugins: [preact()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    rollupOptions: {
      input: {
        checkout: resolve(import.meta.dirname, 'index.html'),
        admin: resolve(import.meta.dirname, 'admin.html'),
      },
    },
  },
  server: {
    proxy: { '/v1': 'http://127.0.0.1:3000' },
  },
});
