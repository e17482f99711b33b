import type { Express } from 'express';

/** Every `METHOD /path` the Express app serves, read from its router stack (`:id` written `{id}`). */
export function routesOf(app: Express): string[] {
  const found: string[] = [];
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const walk = (stack: any[]) => {
    for (const layer of stack) {
      if (layer.route) {
        const path = String(layer.route.path).replace(/:(\w+)/g, '{$1}');
        for (const [m, on] of Object.entries(layer.route.methods as Record<string, boolean>)) {
          if (on && m !== '_all') found.push(`${m.toUpperCase()} ${path}`);
        }
      } else if (layer.handle?.stack) {
        walk(layer.handle.stack);
      }
    }
  };
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  walk((app as any).router.stack);
  return [...new Set(found)].sort();
}
