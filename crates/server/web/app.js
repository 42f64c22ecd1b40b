// nodwyn's web console: a client of nodwyn's protocol over the console's WebSocket. Everything a
// session produced (file names, model text, commands, branch names) is shown with textContent,
// never as HTML, and with its invisible and direction-changing characters made visible.

import { element } from "/dom.js";
import { reviewPanel } from "/review_view.js";
import { visible } from "/text.js";
import { recordInWords, sessionFacts, sessionName, sessionState } from "/words.js";

const $ = (id) => document.getElementById(id);
const state = {
  socket: null,
  next: 1,
  pending: new Map(),
  sessions: new Map(),
  repositories: [],
  // Commits ahead of its base, by session, and how many times the list was read.
  ahead: new Map(),
  refreshes: 0,
  // The session followed, kept in the tab so a reload follows it again.
  current: sessionStorage.getItem("nodwyn-session"),
  last: new Map(),
  questions: new Map(),
  streaming: null,
  // The guard's decisions seen in the followed session's events, in words, for the review.
  decisions: [],
};



function call(method, params = {}) {
  const id = state.next++;
  state.socket.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
  return new Promise((resolve, reject) => state.pending.set(id, { resolve, reject }));
}

function status(text) {
  $("status").textContent = text;
}

// The token comes once, in the address's fragment; it leaves the address bar at once and is kept
// in this tab's sessionStorage, which belongs to this origin alone (its port included), never in
// a cookie, which the browser would also send to any other port of this machine.
function token() {
  const given = new URLSearchParams(location.hash.slice(1)).get("token");
  if (given) {
    sessionStorage.setItem("nodwyn-token", given);
    history.replaceState(null, "", location.pathname);
  }
  return sessionStorage.getItem("nodwyn-token");
}

function connect() {
  const key = token();
  if (!key) {
    status("Open the console at the address nodwyn serve printed (nodwyn console prints it).");
    return;
  }
  const socket = new WebSocket(`ws://${location.host}/ws`, [`nodwyn.${key}`]);
  state.socket = socket;
  socket.addEventListener("open", async () => {
    status("Connected");
    await call("hello", { client: "nodwyn's web console" });
    // The sessions first, so a question already waiting is shown with its session's name; the
    // questions whatever became of them.
    await refresh().catch((error) => status(`Connected; the sessions could not be read: ${error.message}`));
    await call("approval.watch");
    if (state.current) subscribe(state.current);
  });
  socket.addEventListener("message", (event) => receive(JSON.parse(event.data)));
  socket.addEventListener("close", () => {
    status("Disconnected: reconnecting…");
    for (const { reject } of state.pending.values()) reject(new Error("disconnected"));
    state.pending.clear();
    setTimeout(connect, 1000);
  });
}

function receive(message) {
  if (message.id !== undefined && !message.method) {
    const waiting = state.pending.get(message.id);
    state.pending.delete(message.id);
    if (!waiting) return;
    if (message.error) {
      const code = message.error.data && message.error.data.code;
      waiting.reject(new Error(code ? `${code}: ${message.error.message}` : message.error.message));
    }
    else waiting.resolve(message.result);
    return;
  }
  const params = message.params || {};
  if (params.seq !== undefined && params.session) state.last.set(params.session, params.seq);
  if (message.method === "approval.request") return ask(message.id, params);
  if (message.method === "approval.resolved") return settled(params.request);
  if (params.session && params.session !== state.current) return;
  show(message.method, params);
}

async function refresh() {
  const { repositories } = await call("repository.list");
  state.refreshes += 1;
  state.repositories = repositories;
  drawFolders();
  const before = new Map(state.sessions);
  state.sessions.clear();
  const unread = [];
  for (const repo of repositories) {
    // A folder that cannot be read (moved, deleted) is named; the others are listed all the same.
    let sessions;
    try {
      ({ sessions } = await call("session.list", { repo }));
    } catch (error) {
      unread.push(`${repo} (${error.message})`);
      continue;
    }
    // Commits ahead of the base, read less often: it asks git about every worktree (a folder
    // outside git has none).
    if (state.refreshes % 5 === 1) {
      await call("worktree.list", { repo })
        .then(({ worktrees }) => worktrees.forEach((w) => state.ahead.set(w.session, w.ahead)))
        .catch(() => {});
    }
    for (const session of sessions) {
      state.sessions.set(session.session, { ...session, repo, ahead: state.ahead.get(session.session) });
      const was = before.get(session.session);
      if (was && was.turn_running && !session.turn_running) notify(session.session, "finished its turn");
    }
  }
  $("unread").textContent = unread.length ? visible(`Not read: ${unread.join("; ")}`) : "";
  drawSessions();
}

function stateOf(session) {
  return sessionState(session, [...state.questions.values()].some((q) => q.session === session.session));
}

function drawSessions() {
  const list = $("sessions");
  const filter = $("filter").value;
  const search = $("search").value.toLowerCase();
  list.replaceChildren();
  const byRepo = new Map();
  for (const session of state.sessions.values()) {
    const shown = sessionName(session);
    if (filter && stateOf(session) !== filter) continue;
    if (search && !`${shown} ${session.repo}`.toLowerCase().includes(search)) continue;
    if (!byRepo.has(session.repo)) byRepo.set(session.repo, []);
    byRepo.get(session.repo).push([shown, session]);
  }
  for (const [repo, sessions] of byRepo) {
    list.append(element("div", repo, "repository"));
    for (const [shown, session] of sessions.reverse()) {
      const button = element("button", "", "session");
      button.append(element("div", shown), element("div", sessionFacts(session, stateOf(session)), "state"));
      button.setAttribute("aria-current", String(session.session === state.current));
      button.addEventListener("click", () => subscribe(session.session));
      list.append(button);
    }
  }
}

// The folders a new session may start in: the repositories nodwyn knows (any other folder may be
// typed; the engine decides whether it is one).
function drawFolders() {
  const options = state.repositories.map((repo) => {
    const option = document.createElement("option");
    option.value = visible(repo);
    return option;
  });
  $("known-folders").replaceChildren(...options);
}

// Whether a new session of `folder` starts in a worktree: checked unless this tab unchecked it
// for that folder before.
function inWorktreeFor(folder) {
  return sessionStorage.getItem(`nodwyn-in-worktree:${folder}`) !== "no";
}

function startNew() {
  if (state.current) call("session.unsubscribe", { session: state.current }).catch(() => {});
  state.current = null;
  sessionStorage.removeItem("nodwyn-session");
  review.close();
  $("talk").hidden = false;
  $("conversation").replaceChildren();
  $("title").textContent = "New session";
  $("starting").hidden = false;
  $("session-actions").hidden = true;
  $("message").placeholder = "The first message: what the session should do";
  $("composer").hidden = false;
  $("said").textContent = "";
  if (!$("folder").value && state.repositories.length) $("folder").value = state.repositories[0];
  $("in-worktree").checked = inWorktreeFor($("folder").value);
  $("folder").focus();
  drawSessions();
}

async function subscribe(session) {
  $("starting").hidden = true;
  $("session-actions").hidden = false;
  $("message").placeholder = "A message to the agent, or a landing's commit message";
  if (state.current && state.current !== session) {
    call("session.unsubscribe", { session: state.current }).catch(() => {});
  }
  const known = state.current === session && $("conversation").childElementCount > 0;
  state.current = session;
  sessionStorage.setItem("nodwyn-session", session);
  if (!known) {
    $("conversation").replaceChildren();
    state.streaming = null;
    state.decisions = [];
    state.last.delete(session);
  }
  if (review.isOpen() && review.session() !== session) review.open(session);
  const picked = state.sessions.get(session);
  $("title").textContent = visible(picked ? picked.branch || picked.root : session);
  $("composer").hidden = false;
  $("said").textContent = "";
  drawSessions();
  const after = state.last.get(session);
  await call("session.subscribe", after === undefined ? { session } : { session, after });
}

function line(kind, text) {
  const item = element("li");
  item.append(element("span", kind, "kind"), document.createTextNode(visible(text)));
  $("conversation").append(item);
  return item;
}

function show(method, params) {
  if (method === "item.delta") {
    if (!state.streaming) state.streaming = line("agent", "");
    state.streaming.append(document.createTextNode(visible(params.text)));
    return;
  }
  if (method === "item.completed") {
    const streamed = state.streaming;
    state.streaming = null;
    if (params.kind === "user_message") line("you", params.text);
    else if (params.kind === "assistant_message") {
      if (!streamed && params.text) line("agent", params.text);
      for (const called of params.tool_calls || []) line("call", `${called.tool} ${JSON.stringify(called.arguments)}`);
    } else if (params.kind === "tool_result") {
      // The guard's decision is its own record, shown as it comes.
      line(params.ok ? "result" : "failed", `${params.tool}: ${params.content}`);
    } else if (params.kind === "notice") line("note", params.text);
    return;
  }
  if (method === "session.record") {
    const record = params.record || {};
    if (record.type === "guard.decision") {
      line("guard", `${record.action}: ${record.answer}, ${record.why}`);
      const said = decided(record);
      if (said) state.decisions.push(said);
    }
    else {
      const words = recordInWords(record);
      if (words) line(record.type === "git.land" ? "landed" : record.type.startsWith("worktree.") ? "worktree" : "session", words);
    }
    return;
  }
  if (method === "turn.started") {
    setWorking(true);
    review.turnChanged(state.current, false);
  }
  if (method === "turn.completed") {
    setWorking(false);
    review.turnChanged(state.current, true);
    notify(state.current, "finished its turn");
    line("turn", `ended: ${params.end.reason}${params.end.why ? `, ${params.end.why}` : ""}`);
  }
}

// A guard decision the review lists beside the diff: every question and its answer, every
// refusal, every call Don't ask let through; not the calls the rules simply allowed.
function decided(record) {
  if (record.by === "person") return `You ${record.answer === "allow" ? "allowed" : "declined"}: ${record.action}`;
  if (record.answer === "ask") return `Asked you (${record.kind === "security" ? "a security confirm" : "a question"}): ${record.action}`;
  if (record.answer === "refuse") return `Refused: ${record.action} (${record.why})`;
  if (record.by === "dont_ask") return `Allowed by Don't ask: ${record.action}`;
  if (record.by === "standing_answer") return `Allowed by a standing answer: ${record.action}`;
  return null;
}

function setWorking(working) {
  const session = state.sessions.get(state.current);
  if (session) session.turn_running = working;
  drawSessions();
}

// The composer: a message starts a turn; Interrupt ends the running one; Land lands the
// session's work with the box's text as the commit message. Refusals are shown with their code.
async function act(method, params, done) {
  $("said").textContent = "";
  $("said").classList.remove("refused");
  try {
    const answer = await call(method, state.current ? { session: state.current, ...params } : params);
    if (done) await done(answer);
  } catch (error) {
    refused(error.message);
  }
}

function refused(sentence) {
  $("said").classList.add("refused");
  $("said").textContent = visible(sentence);
}

$("composer").addEventListener("submit", (event) => {
  event.preventDefault();
  const text = $("message").value;
  if (!text.trim()) return;
  if (!$("starting").hidden) {
    // The first message starts the new session's first turn.
    const repo = $("folder").value.trim();
    if (!repo) {
      refused("Choose the folder the session works in.");
      return;
    }
    const worktree = $("in-worktree").checked ? "always" : "off";
    act("run.start", { repo, task: text, worktree }, async (started) => {
      $("message").value = "";
      await refresh();
      await subscribe(started.session);
      const opened = state.sessions.get(started.session);
      if (worktree === "always" && opened && !opened.branch) {
        $("said").textContent = visible(`${repo} is not in a git repository: the session works in the folder itself, and asks before each change.`);
      }
    });
    return;
  }
  act("turn.start", { text }, () => ($("message").value = ""));
});
$("message").addEventListener("keydown", (event) => {
  if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) $("composer").requestSubmit();
});
$("interrupt").addEventListener("click", () => act("turn.interrupt", {}));
$("remove").addEventListener("click", () => {
  act("worktree.remove", {}, (removed) => {
    const branch = removed.branch.deleted
      ? "the branch was deleted: its base has all of its work"
      : removed.branch.kept
        ? `the branch stays: ${removed.branch.kept}`
        : "the branch was already gone";
    $("said").textContent = visible(`Removed ${removed.path}; ${branch}.`);
  });
});

const review = reviewPanel({
  call,
  working: (session) => Boolean(state.sessions.get(session) && state.sessions.get(session).turn_running),
  decisions: () => state.decisions,
  sent: () => ($("talk").hidden = false),
});
$("review-open").addEventListener("click", () => {
  if (!state.current) return;
  $("talk").hidden = true;
  review.open(state.current);
});
$("close-review").addEventListener("click", () => ($("talk").hidden = false));
$("land").addEventListener("click", () => {
  act("session.land", { message: $("message").value }, (landed) => {
    $("message").value = "";
    $("said").textContent = visible(landed.summary || "landed");
  });
});

// Desktop notifications, once the person turned them on: a session waiting for an answer, or
// done with its turn, named, when the page is not in view or follows another session.
function notify(session, what) {
  if (!("Notification" in window) || Notification.permission !== "granted") return;
  if (document.visibilityState === "visible" && session === state.current) return;
  const known = state.sessions.get(session);
  const name = visible(known ? sessionName(known) : session);
  const shown = new Notification(`nodwyn: ${name}`, { body: visible(what), tag: `${session}:${what}` });
  shown.addEventListener("click", () => {
    window.focus();
    subscribe(session);
  });
}

function offerNotifications() {
  const offer = $("notify");
  offer.hidden = !("Notification" in window) || Notification.permission !== "default";
}

function ask(id, params) {
  // Asked as a watcher and as the session's subscriber: one question, shown once.
  if (state.questions.has(params.request)) return;
  state.questions.set(params.request, { id, session: params.session, params });
  const item = element("li", "", `question${params.kind === "security" ? " security" : ""}`);
  item.dataset.request = params.request;
  const session = state.sessions.get(params.session);
  item.append(
    element("div", params.kind === "security" ? "Security confirm" : "Question"),
    element("div", session ? sessionName(session) : params.session),
    element("div", params.action, "action"),
    element("div", `because: ${params.why}`),
  );
  for (const [name, decision] of [["Allow", "allow"], ["Decline", "decline"]]) {
    const button = element("button", name, "answer");
    // Not answerable the moment it appears: a click meant for something else (a window that
    // raised itself under the pointer) must not approve it.
    button.disabled = true;
    setTimeout(() => (button.disabled = false), 600);
    button.addEventListener("click", () => {
      state.socket.send(JSON.stringify({ jsonrpc: "2.0", id, result: { decision } }));
    });
    item.append(button);
  }
  $("queue").append(item);
  drawSessions();
  notify(params.session, `waiting for you: ${params.action}`);
}

function settled(request) {
  state.questions.delete(request);
  for (const item of $("queue").querySelectorAll(".question")) {
    if (item.dataset.request === request) item.remove();
  }
  drawSessions();
}

// New sessions (from a terminal, an editor) appear without a reload.
setInterval(() => {
  if (state.socket && state.socket.readyState === WebSocket.OPEN) refresh().catch(() => {});
}, 3000);
$("new-session").addEventListener("click", startNew);
$("notify").addEventListener("click", async () => {
  await Notification.requestPermission();
  offerNotifications();
});
offerNotifications();
$("folder").addEventListener("input", () => ($("in-worktree").checked = inWorktreeFor($("folder").value.trim())));
$("in-worktree").addEventListener("change", () => {
  sessionStorage.setItem(`nodwyn-in-worktree:${$("folder").value.trim()}`, $("in-worktree").checked ? "yes" : "no");
});
$("filter").addEventListener("change", drawSessions);
$("search").addEventListener("input", drawSessions);
connect();
