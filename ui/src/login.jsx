// The login page: a hotplate (or Keystone) token, or, when the server validates against
// Keystone, a user name, password and project. The server's 401 before a session names
// its login; a page that could not learn it offers both ways.

import { useState } from "preact/hooks";
import { login } from "./api.js";

export function LoginPage({ auth, onLogin }) {
  const [mode, setMode] = useState(auth === "keystone" ? "password" : "token");
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e) => {
    e.preventDefault();
    const f = e.currentTarget.elements;
    const body = mode === "token"
      ? { token: f.token.value.trim() }
      : {
        username: f.username.value,
        password: f.password.value,
        project_name: f.project.value,
        user_domain_name: f.user_domain.value || "Default",
        project_domain_name: f.project_domain.value || "Default",
      };
    setBusy(true);
    setError(null);
    try {
      onLogin(await login(body));
    } catch (err) {
      setError(err.status === 401 ? `Refused: ${err.message}` : err.message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <main id="main" class="login">
      <h1>Sign in to hotplate</h1>
      <form onSubmit={submit} aria-label="Sign in">
        {auth !== "token" && (
          <fieldset class="mode">
            <legend>Sign in with</legend>
            <label><input type="radio" name="mode" checked={mode === "token"} onChange={() => setMode("token")} /> {auth === "keystone" ? "a Keystone token" : "a token"}</label>
            <label><input type="radio" name="mode" checked={mode === "password"} onChange={() => setMode("password")} /> a Keystone password</label>
          </fieldset>
        )}
        {mode === "token" ? (
          <div class="field">
            <label for="login-token">Token</label>
            <input id="login-token" name="token" type="password" autocomplete="off" required />
          </div>
        ) : (
          <div>
            <div class="field">
              <label for="login-user">User name</label>
              <input id="login-user" name="username" autocomplete="username" required />
            </div>
            <div class="field">
              <label for="login-password">Password</label>
              <input id="login-password" name="password" type="password" autocomplete="current-password" required />
            </div>
            <div class="field">
              <label for="login-project">Project</label>
              <input id="login-project" name="project" required />
            </div>
            <div class="field">
              <label for="login-user-domain">User domain</label>
              <input id="login-user-domain" name="user_domain" value="Default" />
            </div>
            <div class="field">
              <label for="login-project-domain">Project domain</label>
              <input id="login-project-domain" name="project_domain" value="Default" />
            </div>
          </div>
        )}
        <button type="submit" disabled={busy}>Sign in</button>
        {error && <p class="error" role="alert">{error}</p>}
      </form>
    </main>
  );
}
