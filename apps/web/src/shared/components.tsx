/** Small pieces both pages use. */
import { useEffect, useRef, useState } from 'preact/hooks';

/** An error for the user, announced and scrolled into view (on a phone it may be above the button pressed). */
export function ErrorMessage({ message, onDismiss }: { message: string | null; onDismiss?: () => void }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (message) box.current?.scrollIntoView({ block: 'nearest', behavior: 'smooth' });
  }, [message]);
  if (!message) return null;
  return (
    <div class="notice notice-error" role="alert" data-testid="error-message" ref={box}>
      <span>{message}</span>
      {onDismiss && (
        <button type="button" class="link" onClick={onDismiss} aria-label="Dismiss message">
          ×
        </button>
      )}
    </div>
  );
}

/** Shown when the server is not in demo mode: the user pastes a bearer token. */
export function TokenForm({ role, onToken }: { role: string; onToken: (token: string) => void }) {
  const [value, setValue] = useState('');
  return (
    <form
      class="card"
      data-testid="token-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (value.trim()) onToken(value.trim());
      }}
    >
      <h2>Access token needed</h2>
      <p>
        This server is not in demo mode, so it does not hand out tokens. Paste a {role} token (a JWT issued for
        this service) to continue.
      </p>
      <label for="token-input">Bearer token</label>
      <textarea id="token-input" rows={3} value={value} onInput={(e) => setValue(e.currentTarget.value)} />
      <button type="submit" class="primary" disabled={!value.trim()}>
        Use this token
      </button>
    </form>
  );
}
