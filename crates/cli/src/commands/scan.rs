//! `nodwyn scan`.

use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use clap::Args;
use nodwyn_core::scan::{Report, scan_bytes, scan_paths, scan_revisions};

use crate::commands::Invocation;
use crate::output;

/// Scan for credentials: files and folders (respecting .gitignore), standard input, or the lines
/// a git revision range adds. Exits 1 when anything is found, 0 when nothing is; secrets are
/// always shown redacted.
#[derive(Debug, Args)]
pub(super) struct ScanArgs {
    /// Files and folders to scan (default: the current folder; `-` alone: standard input).
    paths: Vec<PathBuf>,
    /// Scan standard input instead.
    #[arg(long, conflicts_with_all = ["paths", "diff"])]
    stdin: bool,
    /// Scan the lines this revision range adds (such as origin/main..HEAD), in the repository of
    /// the current folder.
    #[arg(long, value_name = "REV_RANGE", conflicts_with = "paths")]
    diff: Option<String>,
    /// Print SARIF 2.1.0, for code-scanning dashboards.
    #[arg(long, conflicts_with = "json")]
    sarif: bool,
}

pub(super) fn run(args: ScanArgs, invocation: &Invocation) -> anyhow::Result<bool> {
    let stdin = Path::new("-");
    let from_stdin = args.stdin || args.paths == [stdin];
    if !from_stdin && args.paths.iter().any(|path| path == stdin) {
        bail!("`-` (standard input) cannot be scanned together with files; scan it on its own");
    }
    let report = if from_stdin {
        let mut bytes = Vec::new();
        std::io::stdin()
            .read_to_end(&mut bytes)
            .context("could not read standard input")?;
        scan_bytes("-", &bytes)
    } else if let Some(range) = &args.diff {
        let dir = std::env::current_dir().context("could not read the current folder")?;
        scan_revisions(&dir, range)?
    } else {
        let paths = if args.paths.is_empty() {
            vec![PathBuf::from(".")]
        } else {
            args.paths
        };
        for path in &paths {
            if std::fs::symlink_metadata(path).is_err() {
                bail!("{}: no such file or folder", path.display());
            }
        }
        scan_paths(&paths)?
    };
    if args.sarif {
        output::json(&sarif(&report))?;
    } else if invocation.json {
        output::json(&report)?;
    } else {
        print_human(&report)?;
    }
    Ok(report.findings.is_empty())
}

fn print_human(report: &Report) -> anyhow::Result<()> {
    let lines: Vec<String> = report
        .findings
        .iter()
        .map(|f| {
            format!(
                "{}:{}:{}  {}  {}",
                f.path, f.line, f.column, f.rule, f.redacted
            )
        })
        .collect();
    if !lines.is_empty() {
        output::text(lines.join("\n"))?;
    }
    output::note(format!(
        "{} credential(s) found in {} byte(s)",
        report.findings.len(),
        report.bytes
    ));
    Ok(())
}

/// The report as a SARIF 2.1.0 log.
fn sarif(report: &Report) -> serde_json::Value {
    let mut rules: Vec<&str> = report.findings.iter().map(|f| f.rule).collect();
    rules.sort_unstable();
    rules.dedup();
    let results: Vec<serde_json::Value> = report
        .findings
        .iter()
        .map(|f| {
            serde_json::json!({
                "ruleId": f.rule,
                "level": "error",
                "message": { "text": format!("A credential ({}) was found: {}", f.rule, f.redacted) },
                "locations": [{
                    "physicalLocation": {
                        "artifactLocation": { "uri": f.path.trim_start_matches("./") },
                        "region": { "startLine": f.line, "startColumn": f.column }
                    }
                }]
            })
        })
        .collect();
    serde_json::json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "nodwyn",
                    "version": env!("CARGO_PKG_VERSION"),
                    "rules": rules.iter().map(|id| serde_json::json!({
                        "id": id,
                        "shortDescription": { "text": format!("credential shape {id}") }
                    })).collect::<Vec<_>>()
                }
            },
            "results": results
        }]
    })
}
