//! How failures leave the program: usage errors exit 2, every other error exits 1 with one
//! sentence on stderr starting `nodwyn: `.

use std::io::Write;
use std::process::ExitCode;

/// Prints a clap error in nodwyn's form and returns its exit code (0 for `--help`/`--version`).
pub fn usage(error: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    match error.kind() {
        ErrorKind::DisplayHelp
        | ErrorKind::DisplayVersion
        | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = error.print();
            if error.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            }
        }
        _ => {
            let rendered = error.render().to_string();
            let rendered = rendered.strip_prefix("error: ").unwrap_or(&rendered);
            let _ = write!(std::io::stderr(), "nodwyn: {rendered}");
            ExitCode::from(2)
        }
    }
}

/// Prints an error and returns exit code 1. A closed stdout (`nodwyn ... | head`) is not an
/// error.
pub fn report(error: &anyhow::Error) -> ExitCode {
    if error
        .downcast_ref::<std::io::Error>()
        .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    {
        return ExitCode::SUCCESS;
    }
    let _ = writeln!(std::io::stderr(), "nodwyn: {}", sentence(error));
    ExitCode::from(1)
}

/// The error and those of its causes that it does not already say, on one line.
fn sentence(error: &anyhow::Error) -> String {
    let mut text = error.to_string();
    for cause in error.chain().skip(1) {
        let cause = cause.to_string();
        if !text.contains(&cause) {
            text.push_str(": ");
            text.push_str(&cause);
        }
    }
    // One line, and nothing in it (an agent's command, a file's name) drives the terminal.
    crate::output::printable(&text.replace('\n', " "))
}
