//! The unified diff of a revision range, as `git diff` prints it, for scanning what it adds.

use std::path::Path;

use crate::Error;
use crate::command::GitCommand;

/// `git diff REV_RANGE` in `dir` with no colour, no external diff or text conversion, and
/// `a/` and `b/` prefixes whatever the person's configuration says. A range that starts with `-`
/// is refused, so it can never be read as an option.
pub fn unified(dir: &Path, range: &str) -> Result<Vec<u8>, Error> {
    if range.starts_with('-') || range.is_empty() {
        return Err(Error::BadRevision(range.to_owned()));
    }
    GitCommand::new(dir)
        .read_only()
        .args([
            "diff",
            "--no-color",
            "--no-ext-diff",
            "--no-textconv",
            "--no-renames",
            "--src-prefix=a/",
            "--dst-prefix=b/",
            "--unified=0",
            range,
            "--",
        ])
        .run()
}
