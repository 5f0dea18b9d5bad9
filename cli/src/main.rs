//! `godot-bin`: reads, writes, converts and relays Godot's binary Variant bytes.
//!
//! Every command is a thin layer over the `godot_bin` library: the text form is
//! `godot_bin::text`, the dissection `godot_bin::dissect`, the JSON mapping
//! `godot_bin::json`, dialect detection `Dialect::detect`, encrypted saves
//! `godot_bin::framing::encrypted`, raw packets `godot_bin::raw::Layout`.

mod args;
mod convert;
mod decode;
mod encode;
mod frames;
mod input;
mod mpproxy;
mod proxy;
mod raw;
mod replay;
mod traffic;
mod tree;

use std::process::ExitCode;

use clap::Parser;

use args::{Cli, Command};

/// Values may nest as deep as the engine allows (`GODOT_MAX_DEPTH`), which takes up to
/// 8 KiB of stack a level in debug builds.
const STACK: usize = 64 << 20;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let worker = std::thread::Builder::new()
        .stack_size(STACK)
        .spawn(|| match cli.command {
            Command::Decode(a) => decode::run(a),
            Command::Encode(a) => encode::run(a),
            Command::Convert(a) => convert::run(a),
            Command::Proxy(a) if a.transport != args::ProxyTransport::Tcp => mpproxy::run(a),
            Command::Proxy(a) => proxy::run(a),
            Command::Replay(a) => replay::run(a),
            Command::Raw(a) => raw::run(a),
        });
    let result = match worker.map(|w| w.join()) {
        Ok(Ok(result)) => result,
        Ok(Err(panic)) => std::panic::resume_unwind(panic),
        Err(e) => Err(anyhow::anyhow!("cannot start: {e}")),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("godot-bin: {e:#}");
            ExitCode::FAILURE
        }
    }
}
