//! `godot-bin replay`.

use std::process::ExitCode;

use crate::args::ReplayArgs;

pub fn run(_a: ReplayArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("replay: not built yet")
}
