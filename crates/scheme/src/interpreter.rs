//! The engine on its own thread, and the one loop through which the host answers its primitive
//! calls and watches its time and memory.
//!
//! A steel engine is neither `Send` nor safe on a small stack, so it lives on a thread of its
//! own with a large stack and is driven over channels. The caller's thread runs each primitive
//! the script calls (so the [`Host`] needs no `Send`), and keeps the Scheme clock: the time spent
//! inside primitives is not counted against the limit, so a script may run a long test suite
//! but may not spin. It also looks at the program's memory every 20 ms. When a limit passes, the
//! engine is interrupted; the script ends with [`Error::TimeLimit`] or [`Error::MemoryLimit`]
//! and the engine stays usable. A panic inside steel ends that engine (and
//! only it) with [`Error::Crashed`].

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

use serde_json::Value;
use steel::rerrs::{ErrorKind, SteelErr};
use steel::rvals::SteelVal;
use steel::steel_vm::ThreadStateController;
use steel::steel_vm::engine::Engine;

use crate::error::Error;
use crate::host::{Host, Surroundings};
use crate::sandbox::hardened_engine;
use crate::screen::screen;
use crate::source::{Origin, Source};
use crate::value::{alist, from_json, string, to_json};

/// The name of the engine's thread, so a program can tell its panics (which the interpreter
/// catches and reports) from its own.
pub const THREAD_NAME: &str = "nodwyn-scheme";

/// The engine thread's stack: steel's compiler recurses once per level of nesting.
pub(crate) const STACK_SIZE: usize = 256 * 1024 * 1024;

/// How long an interrupted script may take to notice before its engine is given up.
const INTERRUPT_GRACE: Duration = Duration::from_secs(5);

/// The text steel's virtual machine stops with when interrupted.
const INTERRUPTED: &str = "Interrupted by user";

/// How long a script may run, and how much memory it may take.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Scheme time per run: the time spent in the engine, not inside primitives.
    pub time: Duration,
    /// How far the program's resident memory may grow during a run, in bytes. steel has no
    /// memory limit of its own: the host watches (on Linux) and interrupts the script.
    pub memory: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            time: Duration::from_secs(10),
            memory: 1 << 30,
        }
    }
}

/// How often the host looks at the memory while a script runs.
const MEMORY_WATCH: Duration = Duration::from_millis(20);

/// The program's resident memory in bytes, where the system tells (Linux).
fn resident_memory() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

impl Interpreter {
    /// The memory the script's limit watches: what the engine's thread holds allocated when
    /// the program counts it, else the program's resident size.
    fn memory(&self) -> Option<u64> {
        crate::allocation::held(&self.allocated).or_else(resident_memory)
    }
}

/// What a script gave back.
#[derive(Debug, Clone, PartialEq)]
pub struct Evaluated {
    /// As a person reads it: a string as its text, anything else as Scheme writes it.
    pub text: String,
    /// As JSON, when the value has a JSON form (a procedure has none).
    pub json: Option<Value>,
}

/// Stops a running script from another thread.
#[derive(Clone)]
pub struct Interrupter(ThreadStateController);

impl Interrupter {
    /// Interrupts whatever the engine runs now; the run ends with [`Error::Interrupted`].
    pub fn interrupt(&self) {
        self.0.interrupt();
    }
}

impl std::fmt::Debug for Interrupter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Interrupter")
    }
}

pub(crate) enum Job {
    Run(Source),
    Defined(String),
}

pub(crate) enum Message {
    Call {
        name: String,
        args: Vec<Value>,
        reply: Sender<Result<Value, String>>,
    },
    Done(Result<Evaluated, Error>),
}

/// A hardened engine on its own thread.
pub struct Interpreter {
    /// Names untrusted Scheme may not define: the primitives and nodwyn's own procedures.
    reserved: Vec<String>,
    jobs: Sender<Job>,
    messages: Receiver<Message>,
    controller: ThreadStateController,
    /// What the engine's thread holds allocated (see [`crate::allocation`]).
    allocated: Arc<std::sync::atomic::AtomicIsize>,
    limits: Limits,
    broken: Option<String>,
}

impl std::fmt::Debug for Interpreter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Interpreter")
            .field("limits", &self.limits)
            .field("broken", &self.broken)
            .finish_non_exhaustive()
    }
}

impl Interpreter {
    /// Starts an engine with every primitive of `surroundings` bound by name, and `(worktree)`
    /// and `(primitives)`.
    pub fn start(surroundings: Surroundings, limits: Limits) -> Result<Self, Error> {
        let reserved = reserved_names(&surroundings);
        let (jobs, job_queue) = mpsc::channel();
        let (messenger, messages) = mpsc::channel();
        let (controller_out, controller_in) = mpsc::channel();
        crate::warm::serve(Start {
            surroundings,
            jobs: job_queue,
            messenger,
            controller_out,
        })?;
        let (controller, allocated) = controller_in
            .recv()
            .map_err(|_| Error::Crashed("it did not start".to_owned()))?;
        Ok(Self {
            reserved,
            jobs,
            messages,
            controller,
            allocated,
            limits,
            broken: None,
        })
    }

    /// A handle that stops the running script from another thread.
    pub fn interrupter(&self) -> Interrupter {
        Interrupter(self.controller.clone())
    }

    /// Compiles and runs `source` (screened first unless it is nodwyn's own), answering its
    /// primitive calls through `host`; gives the value of its last expression.
    pub fn run(&mut self, source: Source, host: &mut dyn Host) -> Result<Evaluated, Error> {
        if source.origin == Origin::Untrusted {
            self.screen(&source)?;
        }
        let what = source.name.clone();
        self.perform(Job::Run(source), &what, host)
    }

    /// Refuses untrusted `source` that reaches outside the sandbox or redefines a primitive (see
    /// [`crate::screen`]).
    pub fn screen(&self, source: &Source) -> Result<(), Error> {
        screen(source, &self.reserved)
    }

    /// Whether `name` is defined in the engine.
    pub fn defined(&mut self, name: &str) -> Result<bool, Error> {
        let evaluated = self.perform(
            Job::Defined(name.to_owned()),
            name,
            &mut crate::host::NoSession {
                reason: "nothing runs while a name is looked up".to_owned(),
            },
        )?;
        Ok(evaluated.json == Some(Value::Bool(true)))
    }

    fn perform(&mut self, job: Job, what: &str, host: &mut dyn Host) -> Result<Evaluated, Error> {
        if let Some(why) = &self.broken {
            return Err(Error::Crashed(why.clone()));
        }
        if self.jobs.send(job).is_err() {
            return Err(self.break_down("its thread ended"));
        }
        let mut remaining = self.limits.time;
        let mut interrupted = false;
        // Why the script was interrupted, when the host did it: the time or the memory.
        let mut stopped_for: Option<Error> = None;
        let baseline = self.memory();
        let mut grace_left = INTERRUPT_GRACE;
        loop {
            let waiting = Instant::now();
            let wait = if interrupted {
                grace_left.min(MEMORY_WATCH)
            } else {
                remaining.min(MEMORY_WATCH)
            };
            match self.messages.recv_timeout(wait) {
                Ok(Message::Call { name, args, reply }) => {
                    remaining = remaining.saturating_sub(waiting.elapsed());
                    // Past the limit nothing more runs, whatever the script does meanwhile.
                    let answer = if interrupted {
                        Err(format!("{name} did not run: the script was stopped"))
                    } else {
                        host.call(&name, args)
                    };
                    // The script may have been interrupted meanwhile; it then never reads this.
                    let _ = reply.send(answer);
                }
                Ok(Message::Done(outcome)) => {
                    return match (outcome, stopped_for) {
                        (Err(Error::Crashed(why)), _) => Err(self.break_down(&why)),
                        (Err(Error::Interrupted), Some(why)) => Err(why),
                        (other, _) => other,
                    };
                }
                Err(RecvTimeoutError::Timeout) if !interrupted => {
                    remaining = remaining.saturating_sub(waiting.elapsed());
                    let grown = match (baseline, self.memory()) {
                        (Some(before), Some(now)) => now.saturating_sub(before),
                        _ => 0,
                    };
                    if grown > self.limits.memory {
                        stopped_for = Some(Error::MemoryLimit {
                            what: what.to_owned(),
                            limit: self.limits.memory,
                        });
                    } else if remaining.is_zero() {
                        stopped_for = Some(Error::TimeLimit {
                            what: what.to_owned(),
                            limit: self.limits.time,
                        });
                    }
                    if stopped_for.is_some() {
                        interrupted = true;
                        self.controller.interrupt();
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    grace_left = grace_left.saturating_sub(waiting.elapsed());
                    if grace_left.is_zero() {
                        self.break_down("it did not stop when interrupted");
                        return Err(stopped_for.unwrap_or(Error::Interrupted));
                    }
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(self.break_down("its thread ended"));
                }
            }
        }
    }

    fn break_down(&mut self, why: &str) -> Error {
        self.broken = Some(why.to_owned());
        Error::Crashed(why.to_owned())
    }
}

/// The names untrusted Scheme may not bind: the primitives, `worktree`, `primitives` and
/// `project-instructions`.
fn reserved_names(surroundings: &Surroundings) -> Vec<String> {
    let mut reserved: Vec<String> = surroundings
        .primitives
        .iter()
        .map(|p| p.name.clone())
        .collect();
    reserved.extend(["worktree", "primitives", "project-instructions"].map(str::to_owned));
    reserved
}

/// Binds each of `guarded` back to the host's own procedure where a script replaced it (a
/// macro's `define` or `set!` the screen cannot read), and names those it had to.
fn put_back_reserved(engine: &mut Engine, guarded: &[(String, SteelVal)]) -> Option<String> {
    let mut replaced = Vec::new();
    for (name, original) in guarded {
        let still = engine.extract_value(name).is_ok_and(|now| now == *original);
        if !still {
            engine.register_value(name, original.clone());
            replaced.push(format!("`{name}`"));
        }
    }
    (!replaced.is_empty()).then(|| replaced.join(", "))
}

/// What an engine thread needs to serve one interpreter.
pub(crate) struct Start {
    surroundings: Surroundings,
    jobs: Receiver<Job>,
    messenger: Sender<Message>,
    controller_out: Sender<(ThreadStateController, Arc<std::sync::atomic::AtomicIsize>)>,
}

/// An engine thread: makes a hardened engine (perhaps before anyone needs it, see
/// [`crate::warm`]), waits for the one interpreter it will serve, and runs its jobs until it is
/// dropped. An engine never serves a second interpreter: nothing one script leaves in it can
/// reach another.
pub(crate) fn engine_thread(starts: &Receiver<Start>) {
    let counting = crate::allocation::ThisThread::counted();
    let clock = Instant::now();
    let made = catch_unwind(AssertUnwindSafe(hardened_engine));
    tracing::debug!(elapsed = ?clock.elapsed(), "a Scheme engine was made");
    let Ok(start) = starts.recv() else {
        return;
    };
    let Ok(engine) = made else {
        return;
    };
    serve(
        engine,
        &start.surroundings,
        &start.jobs,
        &start.messenger,
        (&start.controller_out, counting.counter()),
    );
}

/// Binds the interpreter's surroundings into `engine`, then runs jobs until the interpreter is
/// dropped.
fn serve(
    engine: Engine,
    surroundings: &Surroundings,
    jobs: &Receiver<Job>,
    messages: &Sender<Message>,
    (controller_out, allocated): (
        &Sender<(ThreadStateController, Arc<std::sync::atomic::AtomicIsize>)>,
        Arc<std::sync::atomic::AtomicIsize>,
    ),
) {
    let started = catch_unwind(AssertUnwindSafe(move || {
        let mut engine = engine;
        bind(&mut engine, surroundings, messages);
        engine
    }));
    let Ok(mut engine) = started else {
        return;
    };
    if controller_out
        .send((engine.get_thread_state_controller(), allocated))
        .is_err()
    {
        return;
    }
    // The host's own procedures, by name: after every run each must still be bound to them.
    let guarded: Vec<(String, SteelVal)> = reserved_names(surroundings)
        .into_iter()
        .filter_map(|name| Some((name.clone(), engine.extract_value(&name).ok()?)))
        .collect();
    let mut sources: Vec<Source> = Vec::new();
    for job in jobs {
        engine.get_thread_state_controller().resume();
        let outcome = catch_unwind(AssertUnwindSafe(|| match job {
            Job::Run(source) => {
                let name = source.name.clone();
                let outcome = run(&mut engine, &mut sources, source);
                match put_back_reserved(&mut engine, &guarded) {
                    None => outcome,
                    Some(replaced) => Err(Error::Refused(format!(
                        "{name}: it replaced {replaced}, which is nodwyn's own (a call to it must always be the real one); the file is refused and the real one put back"
                    ))),
                }
            }
            Job::Defined(name) => Ok(Evaluated {
                text: String::new(),
                json: Some(Value::Bool(engine.global_exists(&name))),
            }),
        }));
        match outcome {
            Ok(outcome) => {
                if messages.send(Message::Done(outcome)).is_err() {
                    break;
                }
            }
            Err(panic) => {
                let why = panic_text(panic.as_ref());
                let _ = messages.send(Message::Done(Err(Error::Crashed(why))));
                // After a panic the engine's state is unknown; it is neither used nor dropped.
                std::mem::forget(engine);
                return;
            }
        }
    }
}

fn panic_text(panic: &(dyn std::any::Any + Send)) -> String {
    let text = panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".to_owned());
    format!("steel panicked: {text}")
}

fn run(engine: &mut Engine, sources: &mut Vec<Source>, source: Source) -> Result<Evaluated, Error> {
    let text = source.text.clone();
    let clock = Instant::now();
    tracing::debug!(source = %source.name, "running Scheme");
    sources.push(source);
    let outcome = engine.compile_and_run_raw_program(text);
    tracing::debug!(elapsed = ?clock.elapsed(), ok = outcome.is_ok(), "ran Scheme");
    match outcome {
        Ok(values) => Ok(evaluated(values.last().unwrap_or(&SteelVal::Void))),
        Err(error) => Err(scheme_error(engine, sources, &error)),
    }
}

fn evaluated(value: &SteelVal) -> Evaluated {
    let text = match value {
        SteelVal::StringV(s) => s.as_str().to_owned(),
        SteelVal::Void => String::new(),
        other => other.to_string(),
    };
    Evaluated {
        text,
        json: to_json(value).ok(),
    }
}

/// One line: `file:line:column: message` when steel knows where, the message otherwise.
fn scheme_error(engine: &Engine, sources: &[Source], error: &SteelErr) -> Error {
    let text = error.to_string();
    if text.contains(INTERRUPTED) {
        return Error::Interrupted;
    }
    let message = text.strip_prefix("Error: ").unwrap_or(&text).trim();
    // A primitive's refusal and `(error ...)` come as `Generic`; the kind adds nothing to them.
    let message = message
        .strip_prefix("Generic:")
        .unwrap_or(message)
        .trim()
        .to_owned();
    let place = error.span().and_then(|span| {
        let id = span.source_id()?;
        let text = engine.get_source(&id)?;
        let source = sources
            .iter()
            .rev()
            .find(|s| s.text == text.as_ref().as_ref())?;
        Some(source.place(span.start as usize))
    });
    Error::Scheme(match place {
        Some(place) => format!("{place}: {message}"),
        None => message,
    })
}

/// Binds every primitive by its name, `(primitives)` and `(worktree)`.
fn bind(engine: &mut Engine, surroundings: &Surroundings, messages: &Sender<Message>) {
    for signature in &surroundings.primitives {
        let name = signature.name.clone();
        let gathers_strings = signature.gathers_strings;
        let messages = messages.clone();
        let procedure = move |args: &[SteelVal]| -> Result<SteelVal, SteelErr> {
            let mut args = args
                .iter()
                .map(to_json)
                .collect::<Result<Vec<_>, _>>()
                .map_err(|why| generic(format!("{name}: {why}")))?;
            if gathers_strings && !args.is_empty() && args.iter().all(Value::is_string) {
                args = vec![Value::Array(args)];
            }
            let (reply, answer) = mpsc::channel();
            messages
                .send(Message::Call {
                    name: name.clone(),
                    args,
                    reply,
                })
                .map_err(|_| generic(format!("{name}: nothing is there to run it")))?;
            match answer.recv() {
                Ok(Ok(value)) => Ok(from_json(&value)),
                Ok(Err(sentence)) => Err(generic(sentence)),
                Err(_) => Err(generic(format!("{name}: nothing answered"))),
            }
        };
        engine.register_value(
            &signature.name,
            SteelVal::anonymous_boxed_function(Arc::new(procedure)),
        );
    }
    let primitives = surroundings.primitives.clone();
    engine.register_value(
        "primitives",
        SteelVal::anonymous_boxed_function(Arc::new(move |_args: &[SteelVal]| {
            Ok(SteelVal::ListV(
                primitives
                    .iter()
                    .map(|p| {
                        alist([
                            ("name", string(&p.name)),
                            ("description", string(&p.description)),
                            (
                                "params",
                                SteelVal::ListV(p.params.iter().map(|s| string(s)).collect()),
                            ),
                            ("worktree-only", SteelVal::BoolV(p.worktree_only)),
                        ])
                    })
                    .collect(),
            ))
        })),
    );
    let instructions = surroundings.instructions.clone();
    engine.register_value(
        "project-instructions",
        SteelVal::anonymous_boxed_function(Arc::new(move |_args: &[SteelVal]| {
            Ok(SteelVal::ListV(
                instructions
                    .iter()
                    .map(|file| {
                        alist([
                            ("path", string(&file.path)),
                            ("text", string(&file.text)),
                            ("left-out", SteelVal::IntV(file.left_out as isize)),
                        ])
                    })
                    .collect(),
            ))
        })),
    );
    let worktree = surroundings.worktree.clone();
    engine.register_value(
        "worktree",
        SteelVal::anonymous_boxed_function(Arc::new(move |_args: &[SteelVal]| {
            Ok(match &worktree {
                None => SteelVal::BoolV(false),
                Some(w) => alist([
                    ("repository", string(&w.repository)),
                    ("branch", string(&w.branch)),
                    ("name", string(&w.name)),
                    ("base", string(&w.base)),
                    ("base-commit", string(&w.base_commit)),
                    ("path", string(&w.path)),
                    (
                        "port",
                        w.port.map_or(SteelVal::BoolV(false), |p| {
                            SteelVal::IntV(isize::try_from(p).unwrap_or(isize::MAX))
                        }),
                    ),
                ]),
            })
        })),
    );
}

fn generic(sentence: String) -> SteelErr {
    SteelErr::new(ErrorKind::Generic, sentence)
}
