//! The engine assembled in this process from the person's environment and configuration:
//! `nodwyn serve` serves it to the clients of its socket, and `nodwyn run` is an in-process
//! client of it, speaking the protocol a daemon's clients speak.

use std::sync::Arc;

use anyhow::Context;
use nodwyn_core::prim::Registry;
use nodwyn_server::client::Client;
use nodwyn_server::engine::Overrides;
use nodwyn_server::{Engine, Limits, Server};

use crate::commands::scheme_options::script_options;
use crate::environment;

/// How every session of this process's engine is assembled; `overrides` are the command line's
/// choices over the configuration.
pub(crate) fn engine(store: nodwyn_core::Store, overrides: Overrides) -> anyhow::Result<Engine> {
    // A turn composes its prompt in a Scheme engine of its own: one is made ahead, in the
    // background, while the session is set up.
    nodwyn_core::scheme::keep_warm(1);
    Ok(Engine {
        store,
        registry: Arc::new(Registry::builtin()),
        host: environment::host_settings_confined(),
        services: nodwyn_core::services::Services::default(),
        user_config: environment::user_config_file(),
        scripts: script_options(None)?,
        overrides,
    })
}

/// The runtime an engine's turns run on (model calls, commands, the judge's questions).
pub(crate) fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("could not start the engine's runtime")
}

/// A server of `engine` on `runtime`, its questions declined after the person's configured
/// timeout.
pub(crate) fn server(
    engine: Engine,
    runtime: &tokio::runtime::Runtime,
) -> anyhow::Result<Arc<Server>> {
    let settings =
        nodwyn_config::Settings::resolve(environment::user_config_file().as_deref(), None)?;
    Ok(Server::new(
        engine,
        Limits::default(),
        settings
            .approval_timeout
            .unwrap_or(nodwyn_config::APPROVAL_TIMEOUT),
        runtime.handle().clone(),
    ))
}

/// This process's engine with one client, the command's own.
pub(crate) struct InProcess {
    runtime: Option<tokio::runtime::Runtime>,
    handle: tokio::runtime::Handle,
    server: Arc<Server>,
}

impl InProcess {
    /// The engine of `store`, with the command line's `overrides`.
    pub(crate) fn start(store: nodwyn_core::Store, overrides: Overrides) -> anyhow::Result<Self> {
        let runtime = runtime()?;
        let server = server(engine(store, overrides)?, &runtime)?;
        Ok(Self {
            handle: runtime.handle().clone(),
            runtime: Some(runtime),
            server,
        })
    }

    /// Runs `future` to its end on the engine's runtime.
    pub(crate) fn block_on<F: std::future::Future>(&self, future: F) -> F::Output {
        self.handle.block_on(future)
    }

    /// A client of the engine, which has said hello (as [`crate::remote::connect`]'s has).
    pub(crate) fn client(&self) -> anyhow::Result<Client> {
        let mut client = Client::in_process(Arc::clone(&self.server), self.handle.clone());
        crate::remote::hello(&mut client)?;
        Ok(client)
    }
}

impl Drop for InProcess {
    fn drop(&mut self) {
        // The turns have ended; what is left (a forwarder, a command's reaper) is not waited for.
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}
