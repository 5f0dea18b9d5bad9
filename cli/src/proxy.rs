//! `godot-bin proxy`.

use std::process::ExitCode;

use crate::args::ProxyArgs;

pub fn run(_a: ProxyArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("proxy: not built yet")
}
