//! The hardened steel engine: steel's own sandboxed engine with every procedure that reaches
//! outside it replaced by one that refuses.
//!
//! `Engine::new_sandboxed()` still spawns processes, reads environment variables and makes fresh
//! unsandboxed engines (`eval!`, `run!`, `Engine::new`). Each dangerous builtin module is
//! replaced by a stub of the same name whose every procedure refuses (a stub must keep the names:
//! looking up a missing one panics inside steel), and the global bindings the prelude already
//! made from those modules are replaced the same way. Compile-time reach (`require`, `defmacro`)
//! is stopped earlier, by [`crate::screen`].
//!
//! Everything Scheme prints (`display`, `write`, `newline`, ... and the current output port) goes
//! to stderr: nodwyn's stdout carries only a command's result (one JSON document with `--json`),
//! which a repository's script must not be able to forge or corrupt. The current input port is
//! empty: standard input is the person's terminal, where they answer the guard's questions.
//!
//! steel has no memory limit, and a failed allocation aborts the whole program: the procedures
//! that could ask for gigabytes in one call are bounded (see the `bounds` module).

use std::sync::Arc;

use steel::rerrs::{ErrorKind, SteelErr};
use steel::rvals::SteelVal;
use steel::steel_vm::builtin::BuiltInModule;
use steel::steel_vm::engine::Engine;

/// Builtin modules of which nothing is safe: processes, git, threads, the file system.
const DANGEROUS_MODULES: &[&str] = &[
    "steel/process",
    "steel/git",
    "steel/threads",
    "steel/filesystem",
    "steel/tcp",
    "steel/http",
    "steel/polling",
    "steel/ffi",
];

/// Procedures of otherwise useful modules that reach outside: other engines and evaluation,
/// environment variables, files, standard input, native libraries, blocking waits.
const DANGEROUS_PROCEDURES: &[&str] = &[
    // steel/meta
    "Engine::new",
    "Engine::clone",
    "Engine::add-module",
    "Engine::modules->list",
    "Engine::raise_error",
    "eval",
    "eval!",
    "eval-string",
    "expand!",
    "run!",
    "load",
    "load-expanded",
    "read!",
    "env-var",
    "maybe-get-env-var",
    "set-env-var!",
    "command-line",
    "steel-home-location",
    "#%build-dylib",
    "#%get-dylib",
    "#%expand",
    "emit-expanded",
    "block-on",
    "local-executor/block-on",
    "futures-join-all",
    "join!",
    "poll!",
    "set-test-mode!",
    "dump-profiler",
    "make-callstack-profiler",
    "breakpoint!",
    "debug-globals",
    // #%private/steel/primitives
    "%module-get%",
    "##__module-get",
    "%#maybe-module-get",
    "%module/lookup-function",
    "load-from-module!",
    "std::env::args",
    "#%module",
    "#%module-add",
    "%list-modules!",
    // steel/ports and steel/io: files and standard input
    "open-input-file",
    "open-output-file",
    // The prelude's file helpers call the original `open-output-file`, compiled before it was
    // replaced: each is replaced too, rather than trusting that call to fail.
    "with-output-to-file",
    "call-with-output-file",
    "with-input-from-file",
    "call-with-input-file",
    "stdin",
    "#%default-input-port",
    "read-to-string",
    "read-line",
    "read-char",
    "peek-char",
    "read",
    // steel/time: a sleep cannot be interrupted
    "time/sleep-ms",
];

/// A steel engine from which Scheme reaches nothing outside itself.
pub fn hardened_engine() -> Engine {
    let mut engine = Engine::new_sandboxed();
    for module in DANGEROUS_MODULES {
        let names = engine
            .builtin_modules()
            .get(module)
            .map(|m| m.names())
            .unwrap_or_default();
        let mut stub = BuiltInModule::new(module.to_string());
        for name in &names {
            stub.register_value(name, refusing(name));
        }
        engine.register_module(stub);
        for name in &names {
            engine.register_value(name, refusing(name));
        }
    }
    for name in DANGEROUS_PROCEDURES {
        engine.register_value(name, refusing(name));
    }
    print_to_stderr(&mut engine);
    crate::bounds::bound_sizes(&mut engine);
    engine
}

/// steel's printing procedures, which write to the current output port (the byte writers too:
/// their port is optional, and without one they write to the real stdout).
pub const PRINTING: &[&str] = &[
    "display",
    "displayln",
    "newline",
    "write",
    "write-string",
    "write-char",
    "print",
    "println",
    "simple-display",
    "simple-displayln",
    "write-byte",
    "write-bytes",
    "write-u8",
    "write-bytevector",
];

/// steel's procedures that write to the process's stdout directly, whatever the current output
/// port: each becomes a [`PRINTING`] procedure, which prints to stderr.
pub const WRITING_TO_STDOUT: &[(&str, &str)] = &[("stdout-simple-displayln", "displayln")];

/// Points every printing procedure, the current output port and `stdout` at stderr. steel's own
/// procedures print through a parameter of its prelude, so each is wrapped to run with that
/// parameter set to a stderr port (the originals are captured first: a program that redefines a
/// name sees only the new definition).
fn print_to_stderr(engine: &mut Engine) {
    engine.register_value(
        "%nodwyn-output-port",
        SteelVal::new_dyn_writer_port(nodwyn_text::EscapingWriter::new(std::io::stderr())),
    );
    let mut originals = String::from("(define %nodwyn-original-output current-output-port)\n");
    let mut wrappers = String::new();
    for name in PRINTING {
        originals.push_str(&format!("(define %nodwyn-original-{name} {name})\n"));
        wrappers.push_str(&format!(
            "(define ({name} . args)\n  (parameterize ([%nodwyn-original-output %nodwyn-output-port])\n    (apply %nodwyn-original-{name} args)))\n"
        ));
    }
    for (name, instead) in WRITING_TO_STDOUT {
        wrappers.push_str(&format!(
            "(define ({name} . args) (apply {instead} args))\n"
        ));
    }
    // Standard input is the person's terminal: a script reads nothing from it.
    wrappers.push_str(
        "(define current-output-port (make-parameter %nodwyn-output-port))\n\
         (define (stdout) %nodwyn-output-port)\n\
         (define current-input-port (make-parameter (open-input-string \"\")))\n",
    );
    for program in [originals, wrappers] {
        if let Err(error) = engine.compile_and_run_raw_program(program) {
            // nodwyn's own text: failing here is a bug, reported as the engine not starting.
            panic!("redirecting Scheme's output failed: {error}");
        }
    }
}

/// A procedure that refuses, naming what was called.
fn refusing(name: &str) -> SteelVal {
    refusing_because(
        name,
        "files, processes, the network and the environment are reached only through nodwyn's \
         primitives (fs-read, shell-exec, ...), which the guard judges",
    )
}

/// A procedure that refuses with `why`, naming what was called.
pub(crate) fn refusing_because(name: &str, why: &str) -> SteelVal {
    let sentence = format!("`{name}` is not available in nodwyn's Scheme: {why}");
    SteelVal::anonymous_boxed_function(Arc::new(move |_args: &[SteelVal]| {
        Err(SteelErr::new(ErrorKind::Generic, sentence.clone()))
    }))
}
