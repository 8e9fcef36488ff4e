// The page: hash routes (#/login, #/stacks, #/stacks/<name>/<id>) over one session.

import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { loadSession, logout, setSession } from "./api.js";
import { LoginPage } from "./login.jsx";
import { StackPage } from "./stack.jsx";
import { StackList } from "./stacks.jsx";

function route() {
  const hash = window.location.hash.replace(/^#/, "") || "/stacks";
  const parts = hash.split("/").filter(Boolean).map((p) => {
    try {
      return decodeURIComponent(p);
    } catch (_) {
      return p;
    }
  });
  if (parts[0] === "stacks" && parts.length >= 3) return { page: "stack", name: parts[1], id: parts[2] };
  if (parts[0] === "login") return { page: "login" };
  return { page: "stacks" };
}

function App() {
  const [where, setWhere] = useState(route());
  const [state, setState] = useState({ loading: true, session: null, auth: null, error: null });

  useEffect(() => {
    const onHash = () => setWhere(route());
    const onUnauthorized = () => {
      setSession(null);
      setState((old) => ({ ...old, session: null }));
    };
    window.addEventListener("hashchange", onHash);
    window.addEventListener("hotplate-unauthorized", onUnauthorized);
    loadSession()
      .then(({ session, auth }) => setState({ loading: false, session, auth, error: null }))
      .catch((err) => setState({ loading: false, session: null, auth: null, error: err.message }));
    return () => {
      window.removeEventListener("hashchange", onHash);
      window.removeEventListener("hotplate-unauthorized", onUnauthorized);
    };
  }, []);

  useEffect(() => {
    document.title = where.page === "stack" ? `${where.name} · hotplate` : "hotplate";
  }, [where]);

  if (state.loading) return <main id="main"><p>Loading…</p></main>;
  if (state.error) return <main id="main"><p class="error" role="alert">{state.error}</p></main>;
  if (!state.session || where.page === "login") {
    return (
      <LoginPage
        auth={state.auth}
        onLogin={(session) => {
          setState({ loading: false, session, auth: session.auth, error: null });
          if (where.page === "login") window.location.hash = "#/stacks";
        }}
      />
    );
  }
  const session = state.session;
  const signOut = async () => {
    try {
      await logout();
    } finally {
      setState((old) => ({ ...old, session: null }));
      window.location.hash = "#/login";
    }
  };
  return (
    <div class="app">
      <header class="top">
        <a class="brand" href="#/stacks">hotplate</a>
        <span class="who">{`${session.user} · ${session.project_id} · ${session.roles.join(", ")}`}</span>
        {session.auth !== "noauth" && <button type="button" onClick={signOut}>Sign out</button>}
      </header>
      {where.page === "stack" ? <StackPage key={`${where.name}/${where.id}`} name={where.name} id={where.id} /> : <StackList />}
    </div>
  );
}

render(<App />, document.getElementById("app"));
