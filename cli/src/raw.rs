//! `godot-bin raw`: a packet in a game's own StreamPeer layout, field by field.

use std::io::Write;
use std::process::ExitCode;

use anyhow::{Context, Result};
use godot_bin::raw::{Config, Count, Layout};

use crate::args::{CountArg, RawArgs};
use crate::input;

pub fn run(a: RawArgs) -> Result<ExitCode> {
    let layout: Layout = a.layout.parse().context("--layout")?;
    let bytes = input::unspell(input::read_all(a.file.as_deref())?, a.input)?;
    let count = match a.count {
        CountArg::U8 => Count::U8,
        CountArg::U16 => Count::U16,
        CountArg::U32 => Count::U32,
    };
    let cfg = Config::new()
        .big_endian(a.big_endian)
        .count(count)
        .variant(godot_bin::Config::new().dialect(a.dialect.dialect()));
    let fields = layout.decode(&bytes, &cfg)?;
    let mut out = std::io::stdout().lock();
    for (field, (at, value)) in layout.0.iter().zip(fields) {
        writeln!(out, "{at:>6}  {:<5}  {value}", field.name())?;
    }
    Ok(ExitCode::SUCCESS)
}
