//! End-to-end tests: the `nodwyn` binary built from this tree, run on real git repositories in
//! temporary folders. One test binary (faster to link on two cores); one module per area.

mod acp;
mod attributes;
mod bases;
mod call;
mod console;
mod contract;
mod dispatch;
mod doctor;
mod faults;
mod hooks;
mod human_output;
mod include;
mod land;
mod land_recovery;
mod land_scan;
mod land_together;
mod lifecycle;
mod listing;
mod mcp;
mod new;
mod ports;
mod pull_request;
mod questions;
mod redirected;
mod remote_sessions;
mod removal;
mod run;
mod sandbox;
mod scan;
mod scheme;
mod serve;
mod supervision;
mod terminal;
mod tui;
