//! `nodwyn dispatch kubernetes`: a Kubernetes Indexed Job that runs each task of a dispatch in
//! a pod of its own.
//!
//! `completionMode: Indexed` gives each pod its task's index in `JOB_COMPLETION_INDEX`; the tasks
//! are environment variables `NODWYN_TASK_<index>` (never pasted into the script). Each pod clones
//! the repository, checks out the base commit, writes its configuration, runs the task headless
//! (pushing its session's branch with the git credentials its image carries), and prints its
//! export to its log between two marker lines, for `nodwyn session import` to read from a saved
//! `kubectl logs`. The model key comes from a named Secret; requests, limits and the deadline from
//! the person's `[dispatch]` settings.

use super::{Plan, indented, quoted};

/// The line before a pod's export in its log.
pub const EXPORT_BEGINS: &str = "----- nodwyn export begins -----";
/// The line after it.
pub const EXPORT_ENDS: &str = "----- nodwyn export ends -----";

/// Where the pods run, from the person's `[dispatch]` settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pods {
    /// The Job's name (`nodwyn-dispatch-<when>`).
    pub job_name: String,
    /// The container image: nodwyn, git, and git credentials that may push to the repository.
    pub image: String,
    /// The Secret holding the model key.
    pub secret: String,
    /// The key of the Secret that holds it.
    pub secret_key: String,
    /// Processor requested by each pod (`"2"`).
    pub cpu: String,
    /// Memory requested by each pod, and its limit (`"4Gi"`).
    pub memory: String,
    /// The repository's URL, as the pods clone it and push to it.
    pub repository_url: String,
}

/// The Indexed Job for `plan`, its pods as `pods` says.
pub fn job(plan: &Plan, pods: &Pods) -> String {
    let version = &plan.version;
    let count = plan.tasks.len();
    let deadline = plan.timeout_minutes.saturating_mul(60);
    let mut env = String::new();
    for (index, task) in plan.tasks.iter().enumerate() {
        env.push_str(&format!(
            "            - name: NODWYN_TASK_{index}\n              value: {}\n",
            quoted(task)
        ));
    }
    for (name, value) in [
        ("NODWYN_REPOSITORY", &pods.repository_url),
        ("NODWYN_BASE_BRANCH", &plan.base_branch),
        ("NODWYN_BASE_COMMIT", &plan.base_commit),
    ] {
        env.push_str(&format!(
            "            - name: {name}\n              value: {}\n",
            quoted(value)
        ));
    }
    if let Some(variable) = &plan.model.api_key_env {
        env.push_str(&format!(
            "            - name: {variable}\n              valueFrom:\n                secretKeyRef:\n                  name: {}\n                  key: {}\n",
            quoted(&pods.secret),
            quoted(&pods.secret_key)
        ));
    }
    let script = format!(
        "eval \"TASK=\\${{NODWYN_TASK_${{JOB_COMPLETION_INDEX}}}}\"\nexport NODWYN_TASK_INDEX=\"$JOB_COMPLETION_INDEX\"\ngit clone --quiet --branch \"$NODWYN_BASE_BRANCH\" \"$NODWYN_REPOSITORY\" /tmp/repository\ncd /tmp/repository\ngit checkout -q -B \"$NODWYN_BASE_BRANCH\" \"$NODWYN_BASE_COMMIT\"\ngit branch -q --set-upstream-to=\"origin/$NODWYN_BASE_BRANCH\"\nmkdir -p ~/.config/nodwyn .nodwyn\ncat > ~/.config/nodwyn/config.toml <<'NODWYN_CONFIG'\n{}NODWYN_CONFIG\nprintf 'push = [\"%s\"]\\n' \"$NODWYN_REPOSITORY\" > .nodwyn/allow.toml\ncat >> .nodwyn/allow.toml <<'NODWYN_ALLOW'\n{}NODWYN_ALLOW\necho /.nodwyn/allow.toml >> .git/info/exclude\n{}status=0\n{} || status=$?\necho '{EXPORT_BEGINS}'\ncat /tmp/nodwyn-export.json || true\necho '{EXPORT_ENDS}'\nexit \"$status\"\n",
        plan.config_toml(),
        plan.allow_toml(),
        Plan::identity_lines("nodwyn", "nodwyn@dispatch.invalid"),
        plan.run_line("/tmp/nodwyn-export.json", "JOB_COMPLETION_INDEX"),
    );
    format!(
        r#"# Written by nodwyn {version} (`nodwyn dispatch kubernetes`). Each of the {count} tasks runs
# `nodwyn run --headless` in a pod of its own and pushes only its session's branch; its export is
# printed to its log between "{EXPORT_BEGINS}" and "{EXPORT_ENDS}"
# (`kubectl logs POD > export.log`, then `nodwyn session import export.log`).
apiVersion: batch/v1
kind: Job
metadata:
  name: {job_name}
  labels:
    app.kubernetes.io/name: nodwyn
    app.kubernetes.io/version: {version_label}
spec:
  completionMode: Indexed
  completions: {count}
  parallelism: {count}
  backoffLimit: 0
  activeDeadlineSeconds: {deadline}
  ttlSecondsAfterFinished: 604800
  template:
    metadata:
      labels:
        app.kubernetes.io/name: nodwyn
    spec:
      restartPolicy: Never
      # The agent's commands run in the pod: no cluster credentials, no service addresses.
      automountServiceAccountToken: false
      enableServiceLinks: false
      containers:
        - name: nodwyn
          image: {image}
          command: ["/bin/sh", "-ec"]
          args:
            - |
{script}
          env:
{env}          resources:
            requests:
              cpu: {cpu}
              memory: {memory}
            limits:
              memory: {memory}
"#,
        version_label = quoted(version),
        job_name = quoted(&pods.job_name),
        image = quoted(&pods.image),
        script = indented(&script, 14),
        cpu = quoted(&pods.cpu),
        memory = quoted(&pods.memory),
    )
}
