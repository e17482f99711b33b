/**
 * Where the page's bearer token comes from. In demo mode the API hands one out
 * (`POST /v1/auth/demo-token`) for a random principal id kept in localStorage;
 * otherwise the user pastes a token, which is kept in localStorage too. The page
 * never holds a signing secret.
 */
import { requestDemoToken, type TokenProvider } from './api';
import { randomId } from './format';

export type Role = 'customer' | 'admin';

/** Thrown when there is no demo mode and no pasted token: the page must ask for one. */
export class TokenNeededError extends Error {
  constructor() {
    super('A token is needed.');
    this.name = 'TokenNeededError';
  }
}

function principalId(role: Role): string {
  const key = `holdfast.${role}Id`;
  let id = localStorage.getItem(key);
  if (!id) {
    id = `${role === 'admin' ? 'admin' : 'demo'}-${randomId().slice(0, 12)}`;
    localStorage.setItem(key, id);
  }
  return id;
}

export function createTokenStore(role: Role): TokenProvider & { paste(token: string): void } {
  const pastedKey = `holdfast.token.${role}`;
  let current: Promise<string> | null = null;

  function load(): Promise<string> {
    const pasted = localStorage.getItem(pastedKey);
    const pending = pasted
      ? Promise.resolve(pasted)
      : requestDemoToken(principalId(role), role).then((demo) => {
          if (!demo) throw new TokenNeededError();
          return demo;
        });
    // A failed attempt is not cached: the next call tries again.
    current = pending.catch((error: unknown) => {
      current = null;
      throw error;
    });
    return current;
  }

  return {
    token: () => current ?? load(),
    async renew() {
      // The API refused the token; a pasted one is of no further use.
      localStorage.removeItem(pastedKey);
      return load();
    },
    paste(token: string) {
      localStorage.setItem(pastedKey, token.trim());
      current = Promise.resolve(token.trim());
    },
  };
}
