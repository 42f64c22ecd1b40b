//! `nodwyn-config`: settings in one place. Where nodwyn keeps its data, where the person's
//! configuration and prompts live, and the settings read from those files, resolved the same way
//! for every front-end (the command line today; the engine's later ones). Libraries below it take
//! every setting as an argument.

mod file;
mod locations;
mod model;

pub use file::{
    APPROVAL_TIMEOUT, AcpChoice, HOOK_TIMEOUT, HookChoice, JudgeChoice, SNAPSHOT_AGE, Settings,
    WorktreeMode,
};
pub use locations::{data_dir, data_dir_location, user_config_file, user_prompts_file};
pub use model::{ModelProfile, ModelProvider};
