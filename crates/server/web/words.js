// What the page says of a session's records, in words a person reads (the same facts the
// terminal gives): a worktree made, made again, removed or kept, a landing, a closed session,
// and a session's state in the sidebar.

const plural = (count, one, many) => `${count} ${count === 1 ? one : many}`;

/** A record of a session's log in words, or null for one the conversation shows otherwise. */
export function recordInWords(record) {
  switch (record.type) {
    case "worktree.create": {
      const left = record.uncommitted
        ? `; ${plural(record.uncommitted, "uncommitted change", "uncommitted changes")} of the checkout stayed behind`
        : "";
      return `Made the worktree ${record.path} on ${record.branch}${left}`;
    }
    case "worktree.restore":
      return `Made the worktree again at ${record.path} on ${record.branch}`;
    case "worktree.remove": {
      const branch = record.branch_deleted
        ? `the branch ${record.branch} was deleted`
        : `the branch ${record.branch} stays${record.branch_kept ? `: ${record.branch_kept}` : ""}`;
      const discarded = record.discarded && record.discarded.length
        ? `; discarded ${record.discarded.join(", ")}`
        : "";
      return `Removed the worktree ${record.path}; ${branch}${discarded}`;
    }
    case "worktree.keep":
      return `Kept the worktree ${record.path}`;
    case "git.land":
      return `Landed on ${record.base} (${String(record.landed).slice(0, 8)})`;
    case "session.close":
      return record.kept && record.kept.length
        ? `Closed the session; its worktree stays: ${record.kept.join("; ")}`
        : "Closed the session";
    default:
      return null;
  }
}

/** What a session is called: its name, else its worktree's branch, else its short id. */
export function sessionName(session) {
  return session.name || session.branch || `${session.session.slice(-8)} in the folder`;
}

/**
 * A session's state in the sidebar: waiting for you, working, failed (its last turn failed),
 * closed or idle.
 */
export function sessionState(session, waiting) {
  if (waiting) return "waiting";
  if (!session.open) return "closed";
  if (session.turn_running) return "working";
  if (session.last_turn && session.last_turn.reason === "failed") return "failed";
  return "idle";
}

/** The facts under a session's name in the sidebar: state, commits ahead, its last landing. */
export function sessionFacts(session, state) {
  const facts = [state === "waiting" ? "waiting for you" : state];
  if (typeof session.ahead === "number") facts.push(`${session.ahead} ahead`);
  if (session.last_landing) facts.push(`landed on ${session.last_landing.base}`);
  return facts.join(" · ");
}
