//! Where a headless run runs, told by the environment its CI gives it, and its `run.headless`
//! record.

use crate::Error;
use crate::event::{Event, RanOn, Record};
use crate::store::Store;

/// Where this process runs: a GitHub Actions job (`GITHUB_ACTIONS`), a Kubernetes pod
/// (`KUBERNETES_SERVICE_HOST`), or a machine of its own; the run's id, attempt and the task's
/// index where the CI names them; the host name.
pub fn here(variable: impl Fn(&str) -> Option<String>) -> RanOn {
    let set = |name: &str| variable(name).filter(|value| !value.is_empty());
    let runner = if set("GITHUB_ACTIONS").as_deref() == Some("true") {
        "github-actions"
    } else if set("KUBERNETES_SERVICE_HOST").is_some() {
        "kubernetes"
    } else {
        "machine"
    };
    let machine = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|name| name.trim().to_owned())
        .filter(|name| !name.is_empty())
        .or_else(|| set("HOSTNAME"))
        .unwrap_or_else(|| "unknown".to_owned());
    RanOn {
        runner: runner.to_owned(),
        run_id: set("GITHUB_RUN_ID").or_else(|| set("NODWYN_JOB_NAME")),
        attempt: set("GITHUB_RUN_ATTEMPT"),
        index: set("NODWYN_TASK_INDEX").or_else(|| set("JOB_COMPLETION_INDEX")),
        repository: set("GITHUB_REPOSITORY"),
        machine,
    }
}

/// Records in session `id`'s log that a headless run, with nobody to ask, begins there.
pub fn record_headless(store: &Store, id: &str, ran_on: RanOn) -> Result<(), Error> {
    let stored = store.find(id)?;
    stored.log.append(&Record::new(
        crate::clock::Timestamp::now(),
        Event::RunHeadless { ran_on },
    ))
}
