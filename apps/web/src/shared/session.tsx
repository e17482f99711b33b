/**
 * Gets the page its token before anything else renders: from the demo-token
 * endpoint, or, when the server is not in demo mode, from the user.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { createApi, type Api } from './api';
import { createTokenStore, TokenNeededError, type Role } from './auth';
import { ErrorMessage, TokenForm } from './components';
import { describeError } from './messages';

type State = { kind: 'loading' } | { kind: 'ready' } | { kind: 'needs-token' } | { kind: 'failed'; message: string };

export function Session({ role, children }: { role: Role; children: (api: Api) => ComponentChildren }) {
  const tokens = useMemo(() => createTokenStore(role), [role]);
  const api = useMemo(() => createApi(tokens), [tokens]);
  const [state, setState] = useState<State>({ kind: 'loading' });
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    tokens.token().then(
      () => setState({ kind: 'ready' }),
      (e: unknown) =>
        setState(e instanceof TokenNeededError ? { kind: 'needs-token' } : { kind: 'failed', message: describeError(e) }),
    );
  }, [tokens, attempt]);

  if (state.kind === 'ready') return <>{children(api)}</>;
  return (
    <main class="page">
      {state.kind === 'loading' && <p>Connecting…</p>}
      {state.kind === 'needs-token' && (
        <TokenForm
          role={role}
          onToken={(token) => {
            tokens.paste(token);
            setState({ kind: 'ready' });
          }}
        />
      )}
      {state.kind === 'failed' && (
        <>
          <ErrorMessage message={state.message} />
          <button type="button" onClick={() => setAttempt((n) => n + 1)}>
            Try again
          </button>
        </>
      )}
    </main>
  );
}
