//! Keeping a person's own file in a checkout out of the repository's commits: a line in the
//! repository's `info/exclude` (never in a `.gitignore`, which is repository content and would be
//! committed), so `git status` and a landing's `add -A` pass over it.

use std::path::Path;

use crate::Error;

/// Lists `pattern` (`/.nodwyn/allow.toml`) in the `info/exclude` of `repository`, under a comment
/// saying `why`, unless it is there; says whether it had to.
pub fn exclude_from_git(repository: &Path, pattern: &str, why: &str) -> Result<bool, Error> {
    let common = nodwyn_git::GitCommand::new(repository)
        .read_only()
        .args(["rev-parse", "--path-format=absolute", "--git-common-dir"])
        .run_text()?;
    let info = Path::new(&common).join("info");
    let exclude = info.join("exclude");
    let text = match std::fs::read_to_string(&exclude) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(Error::io(&exclude)(e)),
    };
    if text.lines().any(|l| l.trim() == pattern) {
        return Ok(false);
    }
    std::fs::create_dir_all(&info).map_err(Error::io(&info))?;
    let mut appended = text;
    if !appended.is_empty() && !appended.ends_with('\n') {
        appended.push('\n');
    }
    appended.push_str(&format!("# nodwyn: {why}\n{pattern}\n"));
    nodwyn_prim::versions::write_file(&exclude, appended.as_bytes())?;
    Ok(true)
}
