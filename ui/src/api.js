// Every request the page makes: same-origin, the session cookie, and the CSRF header on
// every state-changing call. No token is ever put in a URL.

let session = null;

export class ApiError extends Error {
  constructor(status, message, body) {
    super(message);
    this.status = status;
    this.body = body;
  }
}

export function currentSession() {
  return session;
}

export function setSession(value) {
  session = value;
}

function errorMessage(body, fallback) {
  if (!body) return fallback;
  if (typeof body.error === "string") return body.error;
  if (body.error && body.error.message) return body.error.message;
  if (body.explanation) return body.explanation;
  if (body.title) return body.title;
  return fallback;
}

/** A JSON request; a non-2xx answer throws ApiError, a 401 also signals the login page. */
export async function request(method, path, body, options = {}) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (method !== "GET" && method !== "HEAD" && session && session.csrf_token) {
    headers["X-CSRF-Token"] = session.csrf_token;
  }
  const answer = await fetch(path, {
    method,
    headers,
    credentials: "same-origin",
    body: body === undefined ? undefined : JSON.stringify(body),
    redirect: "follow",
  });
  const text = await answer.text();
  let data = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch (_) {
      data = options.text ? text : null;
    }
  }
  if (!answer.ok) {
    if (answer.status === 401 && !options.quiet401) {
      window.dispatchEvent(new CustomEvent("hotplate-unauthorized"));
    }
    throw new ApiError(answer.status, errorMessage(data, `${answer.status} ${answer.statusText}`), data);
  }
  return data;
}

export const get = (path, options) => request("GET", path, undefined, options);

/** The project's base path under /v1. */
export function projectPath() {
  return `/v1/${encodeURIComponent(session.project_id)}`;
}

export function stackPath(name, id) {
  return `${projectPath()}/stacks/${encodeURIComponent(name)}/${encodeURIComponent(id)}`;
}

/** The path of a link the API gave (its href may name another host for the same server). */
export function linkPath(href) {
  try {
    const url = new URL(href, window.location.href);
    return url.pathname + url.search;
  } catch (_) {
    return null;
  }
}

export function linkOf(item, rel) {
  const found = (item.links || []).find((link) => link.rel === rel);
  return found ? found.href : null;
}

/** name and id of a stack link (.../stacks/<name>/<id>). */
export function stackOfLink(href) {
  const path = href && linkPath(href);
  if (!path) return null;
  const match = path.match(/\/stacks\/([^/]+)\/([^/?]+)/);
  return match ? { name: decodeURIComponent(match[1]), id: decodeURIComponent(match[2]) } : null;
}

export async function loadSession() {
  try {
    session = await get("/ui/session", { quiet401: true });
  } catch (err) {
    if (err.status === 401) {
      session = null;
      return { session: null, auth: err.body && err.body.auth };
    }
    throw err;
  }
  return { session, auth: session.auth };
}

export async function login(body) {
  session = await request("POST", "/ui/session", body, { quiet401: true });
  return session;
}

export async function logout() {
  try {
    await request("DELETE", "/ui/session");
  } finally {
    session = null;
  }
}
