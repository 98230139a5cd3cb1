import { useState } from 'preact/hooks';
import { api, asyncHandler, setCsrf } from './api';

/** Sign in with the profile's email and password; "Create a profile" runs the POST /v1/profiles flow. */
export function SignIn({ onSignedIn }: { onSignedIn: () => void }) {
  const [mode, setMode] = useState<'in' | 'up'>('in');
  const [error, setError] = useState('');
  const [starter, setStarter] = useState('');
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    const email = String(form.get('email'));
    const password = String(form.get('password'));
    setError('');
    try {
      if (mode === 'up') {
        const created = await api('POST', '/v1/profiles', { email, name: String(form.get('name')), password });
        setStarter(created.token);
      }
      const signed = await api('POST', '/v1/session', { email, password });
      setCsrf(signed.session.csrfToken);
      if (mode === 'in') onSignedIn();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  if (starter) {
    return (
      <main class="narrow">
        <h1>Profile created</h1>
        <p>Your starter token, shown once (an activation mail is on its way):</p>
        <code class="secret">{starter}</code>
        <p>
          <button type="button" onClick={onSignedIn}>
            Continue to the dashboard
          </button>
        </p>
      </main>
    );
  }
  return (
    <main class="narrow">
      <h1>{mode === 'in' ? 'Sign in to awp' : 'Create a profile'}</h1>
      <form onSubmit={asyncHandler(submit)}>
        {mode === 'up' && (
          <label>
            Name
            <input name="name" required autocomplete="name" />
          </label>
        )}
        <label>
          Email
          <input name="email" type="email" required autocomplete="email" />
        </label>
        <label>
          Password
          <input
            name="password"
            type="password"
            required
            minLength={mode === 'up' ? 8 : 1}
            autocomplete={mode === 'in' ? 'current-password' : 'new-password'}
          />
        </label>
        <button type="submit">{mode === 'in' ? 'Sign in' : 'Create profile'}</button>
      </form>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <p>
        <button type="button" class="link" onClick={() => setMode(mode === 'in' ? 'up' : 'in')}>
          {mode === 'in' ? 'No profile yet? Sign up' : 'Have a profile? Sign in'}
        </button>
      </p>
    </main>
  );
}
