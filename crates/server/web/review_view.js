// The review of a session's changes in the page: scopes, unified and side by side, comments on
// lines and files kept as drafts, the guard's verdicts beside the diff, and Send review. It asks
// the engine for everything it shows (`worktree.changes`, `worktree.scan`) and sends the
// comments as one `worktree.review`; it decides nothing the engine decides.

import { button, element } from "/dom.js";
import { visible } from "/text.js";
import { Drafts, Latest, numbered, ordered, outdated, reviewParams, sideBySide } from "/review.js";

const $ = (id) => document.getElementById(id);

// The most rows of a file's diff drawn at first; the rest on asking, so a file of a hundred
// thousand lines does not hold the page.
const ROWS_AT_ONCE = 2000;

const SCOPES = [
  ["since_base", "Since base"],
  ["uncommitted", "Uncommitted"],
  ["last_turn", "Last turn"],
];

/**
 * The review panel. `call` sends a request; `working(session)` says whether the session is
 * answering; `decisions(session)` gives the guard's decisions seen in its events; `sent()` is
 * told when a review went.
 */
export function reviewPanel({ call, working, decisions, sent }) {
  const drafts = new Drafts(localStorage);
  const latest = new Latest();
  const view = {
    session: null,
    scope: "since_base",
    layout: "unified",
    files: null,
    complete: false,
    // The landing scan's last answer (the same whatever the scope).
    scan: null,
    omitted: [],
    file: null,
    shownRows: ROWS_AT_ONCE,
    kept: { comments: [], note: "", draft: null },
  };

  const save = () => drafts.save(view.session, view.kept);
  const say = (text, refused) => {
    $("review-said").textContent = visible(text);
    $("review-said").classList.toggle("refused", Boolean(refused));
  };

  function open(session) {
    view.session = session;
    view.kept = drafts.load(session);
    view.files = null;
    view.scan = null;
    view.omitted = [];
    view.file = null;
    view.shownRows = ROWS_AT_ONCE;
    $("review").hidden = false;
    $("note").value = view.kept.note;
    // Nothing of the session shown before stays on screen to be commented on as this one's.
    drawFiles();
    drawDiff();
    $("verdicts").replaceChildren();
    drawToolbar();
    drawComments();
    refresh();
  }

  function close() {
    view.session = null;
    $("review").hidden = true;
  }

  // Reads the changes in the scope chosen, and, unless only the scope changed (what a landing
  // would publish does not depend on it), the landing's scan again.
  async function refresh({ scopeOnly = false } = {}) {
    const ticket = latest.ticket();
    const { session, scope } = view;
    say("Reading the changes…");
    const scanned = scopeOnly && view.scan ? Promise.resolve(view.scan) : call("worktree.scan", { session });
    const [changes, scan] = await Promise.allSettled([call("worktree.changes", { session, scope }), scanned]);
    // A reply to an older request (another scope, another session) is discarded.
    if (!latest.current(ticket) || view.session !== session) return;
    if (changes.status === "rejected") {
      // The diff shown before stays; only the sentence says it could not be read again.
      say(`Could not read the changes: ${changes.reason.message}${view.files ? " (showing the last ones read)" : ""}`, true);
    } else {
      view.files = changes.value.files;
      view.omitted = changes.value.omitted;
      // Whether these are every change since the base (the scope they were read for, which the
      // person may have changed since).
      view.complete = scope === "since_base";
      if (!view.files.some((f) => f.path === view.file)) view.file = view.files.length ? view.files[0].path : null;
      say(view.files.length ? "" : "No changes in this scope.");
    }
    view.scan = scan.status === "fulfilled" ? scan.value : null;
    drawVerdicts(view.scan || { error: scan.reason.message });
    drawFiles();
    drawDiff();
    drawComments();
  }

  function drawToolbar() {
    for (const [scope, name] of SCOPES) {
      const chosen = $(`scope-${scope}`);
      chosen.setAttribute("aria-pressed", String(view.scope === scope));
      chosen.textContent = name;
    }
    $("layout-unified").setAttribute("aria-pressed", String(view.layout === "unified"));
    $("layout-split").setAttribute("aria-pressed", String(view.layout === "split"));
    drawSendState();
  }

  const WAITS = "Send review waits: the session is answering. It can be sent when the turn ends.";

  function drawSendState() {
    if (!view.session) return;
    const answering = working(view.session);
    $("send-review").disabled = answering;
    if (answering) sendSaid(WAITS, false);
    else if ($("review-waits").textContent === WAITS) sendSaid("", false);
  }

  // What became of Send review, beside it (the diff's own sentences are above the diff).
  function sendSaid(text, refused) {
    $("review-waits").textContent = visible(text);
    $("review-waits").classList.toggle("refused", refused);
  }

  function drawFiles() {
    const list = $("files");
    list.replaceChildren();
    for (const file of view.files || []) {
      const item = element("li");
      const counts = file.added === null ? "binary" : `+${file.added} −${file.removed}`;
      // The name and its counts apart, so a name cannot pass for counts.
      const open = button(file.path, () => {
        view.file = file.path;
        view.shownRows = ROWS_AT_ONCE;
        drawFiles();
        drawDiff();
      }, "file");
      open.append(element("span", counts, "counts"));
      open.setAttribute("aria-current", String(file.path === view.file));
      item.append(open);
      list.append(item);
    }
  }

  function commentsOn(path, line) {
    return view.kept.comments.filter((c) => c.path === path && c.line === line);
  }

  function isOutdated(comment) {
    return view.files !== null && outdated(comment, view.files, view.complete);
  }

  // A saved comment, shown under its line or file, with a way to delete it.
  function savedComment(comment) {
    const box = element("div", "", `comment${isOutdated(comment) ? " outdated" : ""}`);
    if (isOutdated(comment)) box.append(element("strong", "Outdated: the line changed since this was written. "));
    box.append(element("span", comment.text));
    box.append(button("Delete comment", () => {
      view.kept.comments = view.kept.comments.filter((c) => c !== comment);
      save();
      drawDiff();
      drawComments();
    }, "small"));
    return box;
  }

  // The box for a new comment on `line` (0: the whole file) of `path`, holding the draft.
  function commentBox(path, line, anchor) {
    // The session this box was drawn for: a save after the review moved on is not another's.
    const session = view.session;
    const box = element("div", "", "comment-box");
    const text = document.createElement("textarea");
    text.setAttribute("aria-label", "Comment");
    text.rows = 3;
    const draft = view.kept.draft;
    if (draft && draft.path === path && draft.line === line) text.value = draft.text;
    text.addEventListener("input", () => {
      if (view.session !== session) return;
      view.kept.draft = { path, line, anchor, text: text.value };
      save();
    });
    const saveButton = button("Save comment", () => {
      if (!text.value.trim() || view.session !== session) return;
      view.kept.comments.push({ path, line, anchor, text: text.value, made: Date.now() });
      view.kept.draft = null;
      save();
      drawDiff();
      drawComments();
    });
    const cancel = button("Cancel", () => {
      view.kept.draft = null;
      save();
      drawDiff();
    }, "small");
    text.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) saveButton.click();
    });
    box.append(text, saveButton, cancel);
    setTimeout(() => text.focus(), 0);
    return box;
  }

  function startComment(path, line, anchor) {
    view.kept.draft = { path, line, anchor, text: "" };
    save();
    drawDiff();
  }

  function isDraftAt(path, line) {
    const draft = view.kept.draft;
    return draft !== null && draft.path === path && draft.line === line;
  }

  function gutter(row, path) {
    if (row === null || row.new === null) return element("td", row && row.old !== null ? String(row.old) : "", "number");
    const cell = element("td", "", "number");
    cell.append(button(String(row.new), () => startComment(path, row.new, row.text), "line"));
    cell.firstChild.setAttribute("aria-label", `Comment on line ${row.new} of ${visible(path)}`);
    return cell;
  }

  // Under a line: its saved comments and, when one is being written there, the box.
  function afterLine(table, path, row, columns) {
    if (row === null || row.new === null) return;
    const under = commentsOn(path, row.new).map(savedComment);
    if (isDraftAt(path, row.new)) under.push(commentBox(path, row.new, row.text));
    if (!under.length) return;
    const tr = element("tr", "", "under");
    const td = element("td");
    td.colSpan = columns;
    td.append(...under);
    tr.append(td);
    table.append(tr);
  }

  function drawDiff() {
    const place = $("diff");
    place.replaceChildren();
    const file = (view.files || []).find((f) => f.path === view.file);
    if (!file) return;
    const head = element("div", "", "file-head");
    head.append(element("h3", file.path));
    const onFile = button("Comment on file", () => startComment(file.path, 0, null), "small");
    onFile.setAttribute("aria-label", `Comment on ${visible(file.path)}`);
    head.append(onFile);
    place.append(head);
    for (const comment of commentsOn(file.path, 0)) place.append(savedComment(comment));
    if (isDraftAt(file.path, 0)) place.append(commentBox(file.path, 0, null));
    if (file.note) place.append(element("p", file.note, "note"));
    const table = element("table", "", `diff ${view.layout}`);
    // The numbers narrow, the text the rest (a fixed layout takes its widths from here).
    const columns = document.createElement("colgroup");
    for (const kind of view.layout === "unified" ? ["number", "number", "code"] : ["number", "code", "number", "code"]) {
      columns.append(element("col", undefined, kind));
    }
    table.append(columns);
    let drawn = 0;
    for (const hunk of file.hunks || []) {
      if (drawn >= view.shownRows) break;
      drawn += hunk.lines.length;
      const top = element("tr", "", "hunk");
      const cell = element("td", hunk.header);
      cell.colSpan = view.layout === "unified" ? 3 : 4;
      top.append(cell);
      table.append(top);
      const rows = numbered(hunk);
      if (view.layout === "unified") {
        for (const row of rows) {
          const tr = element("tr", "", row.kind);
          tr.append(element("td", row.old === null ? "" : String(row.old), "number"), gutter(row, file.path));
          tr.append(element("td", row.kind === "note" ? row.text : `${marker(row)}${row.text}`, "code"));
          table.append(tr);
          afterLine(table, file.path, row, 3);
        }
      } else {
        for (const { left, right } of sideBySide(rows)) {
          const tr = element("tr");
          tr.append(element("td", left && left.old !== null ? String(left.old) : "", "number"));
          tr.append(element("td", left ? left.text : "", `code ${left ? left.kind : "empty"}`));
          tr.append(gutter(right, file.path));
          tr.append(element("td", right ? right.text : "", `code ${right ? right.kind : "empty"}`));
          table.append(tr);
          afterLine(table, file.path, right, 4);
        }
      }
    }
    place.append(table);
    const total = (file.hunks || []).reduce((sum, hunk) => sum + hunk.lines.length, 0);
    if (drawn < total) {
      place.append(button(`Show the other ${total - drawn} lines`, () => {
        view.shownRows = Infinity;
        drawDiff();
      }));
    }
  }

  function marker(row) {
    return row.kind === "added" ? "+" : row.kind === "removed" ? "-" : " ";
  }

  function drawComments() {
    const list = $("comments");
    list.replaceChildren();
    for (const comment of ordered(view.kept.comments)) {
      const item = element("li");
      const where = comment.line === 0 ? `${comment.path}, the whole file` : `${comment.path}:${comment.line}`;
      item.append(element("div", where, "where"), savedComment(comment));
      list.append(item);
    }
    $("comment-count").textContent = `${view.kept.comments.length} comment${view.kept.comments.length === 1 ? "" : "s"}`;
  }

  function drawVerdicts(scan) {
    const list = $("verdicts");
    list.replaceChildren();
    if (scan.error) list.append(element("li", `The landing's credential scan could not run: ${scan.error}`, "refused"));
    else if (scan.findings.length === 0) list.append(element("li", "A landing's credential scan finds nothing in what would leave.", "fine"));
    else for (const finding of scan.findings) list.append(element("li", `A landing would refuse: ${finding}`, "refused"));
    for (const left of view.omitted) list.append(element("li", `Left out: ${left.path} (${left.why})`));
    for (const decision of decisions(view.session)) list.append(element("li", decision));
  }

  async function send() {
    const params = reviewParams(view.session, view.kept.comments, $("note").value);
    const stale = view.kept.comments.filter(isOutdated);
    if (stale.length) {
      sendSaid(`${stale.length} comment${stale.length === 1 ? " is" : "s are"} outdated: delete or write again before sending.`, true);
      return;
    }
    if (!params.note && !params.comments.length && !params.file_comments.length) {
      sendSaid("Write a comment or a note first.", true);
      return;
    }
    sendSaid("", false);
    try {
      await call("worktree.review", params);
    } catch (error) {
      sendSaid(error.message, true);
      return;
    }
    const session = view.session;
    drafts.clear(session);
    close();
    sent(session);
  }

  for (const [scope] of SCOPES) {
    $(`scope-${scope}`).addEventListener("click", () => {
      view.scope = scope;
      drawToolbar();
      refresh({ scopeOnly: true });
    });
  }
  $("layout-unified").addEventListener("click", () => {
    view.layout = "unified";
    drawToolbar();
    drawDiff();
  });
  $("layout-split").addEventListener("click", () => {
    view.layout = "split";
    drawToolbar();
    drawDiff();
  });
  $("note").addEventListener("input", () => {
    view.kept.note = $("note").value;
    save();
  });
  $("send-review").addEventListener("click", send);
  $("close-review").addEventListener("click", () => close());

  return {
    open,
    close,
    isOpen: () => view.session !== null,
    session: () => view.session,
    // The session's turn began or ended: whether it may be sent changes, and its files may have.
    turnChanged(session, ended) {
      if (session !== view.session) return;
      drawSendState();
      if (ended) refresh();
    },
  };
}
