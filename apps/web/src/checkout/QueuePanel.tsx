/** The waiting room as the buyer sees it: join, their place and the estimated wait, until admitted. */
import type { QueueStanding } from '@holdfast/client';

interface Props {
  standing: QueueStanding | null;
  joining: boolean;
  challenge: boolean;
  opensNote: string | null;
  onJoin: () => void;
}

export function QueuePanel({ standing, joining, challenge, opensNote, onJoin }: Props) {
  const state = standing?.state ?? 'none';
  return (
    <section class="card queue-panel" data-testid="queue-panel" data-state={state} aria-live="polite">
      <h2>Waiting room</h2>
      {state === 'waiting' && standing ? (
        <>
          <p class="queue-position">
            You are number <strong data-testid="queue-position">{standing.position.toLocaleString('en-US')}</strong> in line
            {opensNote ? ' so far' : ''}.
          </p>
          {opensNote && (
            <p class="muted" data-testid="queue-provisional">
              Places are drawn at random among everyone who joins before the opening, so yours can still move back as others
              join. {opensNote}
            </p>
          )}
          <p class="muted" data-testid="queue-eta">
            Estimated wait: {standing.etaSeconds < 60 ? 'under a minute' : `about ${Math.ceil(standing.etaSeconds / 60)} minutes`}. Keep this
            page open: the seat map opens by itself when it is your turn.
          </p>
        </>
      ) : state === 'admitted' ? (
        <p data-testid="queue-admitted">It is your turn: choose your seats.</p>
      ) : (
        <>
          <p>
            {state === 'ended'
              ? 'Your turn has ended. Join again for a new place in line.'
              : 'This sale has a waiting room: join it to get your place in line. Everyone who joins before the opening gets a random place when sales open.'}
          </p>
          {opensNote && <p class="muted">{opensNote}</p>}
          <button type="button" class="primary" data-testid="queue-join" disabled={joining} onClick={onJoin}>
            {joining ? (challenge ? 'Checking your browser…' : 'Joining…') : 'Join the queue'}
          </button>
        </>
      )}
    </section>
  );
}
