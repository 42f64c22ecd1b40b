// The review's own logic, kept apart from the page so Node's test runner checks it: numbering a
// hunk's lines, pairing them for side by side, ordering comments, telling a comment whose line
// changed since it was written, discarding a stale reply, and keeping each session's comments
// and unfinished draft in the browser's storage.

/** The first line and count of each side of a `@@ -a,b +c,d @@` header. */
export function header(text) {
  const found = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(text);
  if (!found) return null;
  const count = (given) => (given === undefined ? 1 : Number(given));
  return {
    old: Number(found[1]),
    oldCount: count(found[2]),
    new: Number(found[3]),
    newCount: count(found[4]),
  };
}

/**
 * A hunk's lines, each with its kind (`context`, `added`, `removed`, or `note` for git's
 * "\ No newline at end of file"), its number on each side it is on, and its text without the
 * leading marker.
 */
export function numbered(hunk) {
  const start = header(hunk.header) || { old: 1, new: 1 };
  let old = start.old;
  let now = start.new;
  const rows = [];
  for (const line of hunk.lines) {
    const marker = line[0];
    const text = line.slice(1);
    if (marker === "+") rows.push({ kind: "added", old: null, new: now++, text });
    else if (marker === "-") rows.push({ kind: "removed", old: old++, new: null, text });
    else if (marker === "\\") rows.push({ kind: "note", old: null, new: null, text: line });
    else rows.push({ kind: "context", old: old++, new: now++, text });
  }
  return rows;
}

/**
 * Rows of a hunk side by side: a context line on both sides; each run of removed lines beside
 * the run of added lines that follows it, line by line, the shorter run's side left empty.
 */
export function sideBySide(rows) {
  const pairs = [];
  let removed = [];
  let added = [];
  const flush = () => {
    for (let i = 0; i < Math.max(removed.length, added.length); i++) {
      pairs.push({ left: removed[i] || null, right: added[i] || null });
    }
    removed = [];
    added = [];
  };
  for (const row of rows) {
    if (row.kind === "removed") {
      if (added.length) flush();
      removed.push(row);
    } else if (row.kind === "added") added.push(row);
    else {
      flush();
      pairs.push(row.kind === "context" ? { left: row, right: row } : { left: row, right: null });
    }
  }
  flush();
  return pairs;
}

/** The lines a file of the diff shows as the file is now: line number to text. */
export function newLines(file) {
  const lines = new Map();
  for (const hunk of file.hunks || []) {
    for (const row of numbered(hunk)) if (row.new !== null) lines.set(row.new, row.text);
  }
  return lines;
}

/**
 * Whether a comment no longer fits the diff `files`: a line comment whose line shows other text
 * now, or (when `files` is every change since the base) whose line or file the changes no
 * longer have. A diff of fewer changes cannot tell that a line it does not show changed.
 */
export function outdated(comment, files, complete) {
  const file = files.find((f) => f.path === comment.path);
  if (!file) return complete;
  if (comment.line === 0) return false;
  const text = newLines(file).get(comment.line);
  if (text === undefined) return complete;
  return text !== comment.anchor;
}

/** Comments in the order they are read and sent: by file, a file's own comments first, then by line. */
export function ordered(comments) {
  return [...comments].sort(
    (a, b) =>
      (a.path < b.path ? -1 : a.path > b.path ? 1 : 0) || a.line - b.line || a.made - b.made,
  );
}

/** The parameters of `worktree.review` for a session's comments and note. */
export function reviewParams(session, comments, note) {
  const sorted = ordered(comments);
  const params = {
    session,
    // Each with its line as the person saw it: the engine refuses one whose line reads
    // otherwise now, which no diff this page holds can tell.
    comments: sorted
      .filter((c) => c.line > 0)
      .map(({ path, line, text, anchor }) => ({ path, line, text, line_text: anchor })),
    file_comments: sorted.filter((c) => c.line === 0).map(({ path, text }) => ({ path, text })),
  };
  if (note.trim()) params.note = note;
  return params;
}

/**
 * Replies that may arrive out of order: each request takes a ticket, and only the reply to the
 * newest one is used; an older reply is stale and discarded.
 */
export class Latest {
  constructor() {
    this.issued = 0;
  }
  ticket() {
    return ++this.issued;
  }
  current(ticket) {
    return ticket === this.issued;
  }
}

/**
 * Each session's comments, note and unfinished comment, kept in `storage` (the browser's
 * localStorage: they outlive a redraw, closing the review, switching sessions and closing the
 * tab) until the review is sent.
 */
export class Drafts {
  constructor(storage) {
    this.storage = storage;
  }
  key(session) {
    return `nodwyn-review:${session}`;
  }
  load(session) {
    const empty = { comments: [], note: "", draft: null };
    try {
      const kept = JSON.parse(this.storage.getItem(this.key(session)) || "null");
      if (!kept || !Array.isArray(kept.comments)) return empty;
      return { ...empty, ...kept };
    } catch {
      return empty;
    }
  }
  save(session, review) {
    this.storage.setItem(this.key(session), JSON.stringify(review));
  }
  clear(session) {
    this.storage.removeItem(this.key(session));
  }
}
