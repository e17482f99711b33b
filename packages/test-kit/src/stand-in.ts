/**
 * An object that stands for what `current()` answers when it is used, not
 * when it is made: a suite takes it at load time and uses it in its tests
 * and hooks, once a beforeAll has made the real one.
 */
export function standIn<T extends object>(current: () => T): T {
  return new Proxy({} as T, {
    get(_target, key) {
      const target = current();
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
