//! A world snapshot of 1000 entities through godot_bin and its peers in one run.
//!
//! `cargo bench --bench world`; `scripts/bench-report.sh` turns the results into the
//! README table. Before the timings, the encoded size and the heap use of one decode
//! are printed for every format (a counting allocator wraps the system one).
//!
//! The `variant` group times the snapshot as a dynamic `Variant` in both the Godot 3
//! and Godot 4 dialects. Before timing it writes those exact bytes to
//! `<target dir>/bench-data/world-3.bin` and `world-4.bin` (`target/bench-data/` by
//! default; it follows `CARGO_TARGET_DIR`), so that the real engines can be timed on
//! the very same input.

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use godot_bin::{Config, Dialect, PoolStringArray, Quat, Variant, Vector3};
use serde::{Deserialize, Serialize};

struct Counting;

static ALLOCS: AtomicUsize = AtomicUsize::new(0);
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Relaxed);
        let live = LIVE.fetch_add(layout.size(), Relaxed) + layout.size();
        PEAK.fetch_max(live, Relaxed);
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Relaxed);
        System.dealloc(ptr, layout)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// (allocations, peak extra heap bytes) of running `f` once.
fn heap<T>(f: impl FnOnce() -> T) -> (usize, usize) {
    let (a0, l0) = (ALLOCS.load(Relaxed), LIVE.load(Relaxed));
    PEAK.store(l0, Relaxed);
    let v = f();
    let r = (ALLOCS.load(Relaxed) - a0, PEAK.load(Relaxed) - l0);
    drop(v);
    r
}

include!("common/world_data.rs");

type Enc = fn(&World) -> Vec<u8>;
type Dec = fn(&[u8]) -> World;

fn formats() -> Vec<(&'static str, Enc, Dec)> {
    vec![
        (
            "godot_bin",
            |w| godot_bin::to_vec(w).unwrap(),
            |b| godot_bin::from_slice(b).unwrap(),
        ),
        (
            "bincode",
            |w| bincode::serialize(w).unwrap(),
            |b| bincode::deserialize(b).unwrap(),
        ),
        (
            "postcard",
            |w| postcard::to_allocvec(w).unwrap(),
            |b| postcard::from_bytes(b).unwrap(),
        ),
        (
            "rmp_serde",
            |w| rmp_serde::to_vec_named(w).unwrap(),
            |b| rmp_serde::from_slice(b).unwrap(),
        ),
        (
            "serde_json",
            |w| serde_json::to_vec(w).unwrap(),
            |b| serde_json::from_slice(b).unwrap(),
        ),
    ]
}

fn report(w: &World) {
    eprintln!("\nformat       bytes   decode: allocations  peak heap bytes");
    for (name, enc, dec) in formats() {
        let bytes = enc(w);
        assert_eq!(&dec(&bytes), w, "{name} round trip");
        let (allocs, peak) = heap(|| dec(&bytes));
        eprintln!("{name:<11} {:>6}   {allocs:>18}  {peak:>15}", bytes.len());
    }
    let g = godot_bin::to_vec(w).unwrap();
    assert!(
        same(&godot_bin::from_slice::<WorldRef>(&g).unwrap(), w),
        "borrowed decode"
    );
    let (allocs, peak) = heap(|| godot_bin::from_slice::<WorldRef>(&g).unwrap());
    eprintln!("godot_bin borrowed        {allocs:>11}  {peak:>15}");
    let p = postcard::to_allocvec(w).unwrap();
    assert!(
        same(&postcard::from_bytes::<WorldRef>(&p).unwrap(), w),
        "postcard borrowed decode"
    );
    let (allocs, peak) = heap(|| postcard::from_bytes::<WorldRef>(&p).unwrap());
    eprintln!("postcard borrowed         {allocs:>11}  {peak:>15}");
    let (allocs, peak) = heap(|| godot_bin::from_slice::<Variant>(&g).unwrap());
    eprintln!("godot_bin Variant         {allocs:>11}  {peak:>15}");
    let j = serde_json::to_vec(w).unwrap();
    let (allocs, peak) = heap(|| serde_json::from_slice::<serde_json::Value>(&j).unwrap());
    eprintln!("serde_json Value          {allocs:>11}  {peak:>15}\n");
}

fn bench(c: &mut Criterion) {
    let w = world();
    report(&w);

    let mut group = c.benchmark_group("serialize");
    for (name, enc, _) in formats() {
        group.throughput(Throughput::Bytes(enc(&w).len() as u64));
        group.bench_with_input(BenchmarkId::from_parameter(name), &w, |b, w| {
            b.iter(|| enc(black_box(w)))
        });
    }
    group.finish();

    let mut group = c.benchmark_group("deserialize");
    for (name, enc, dec) in formats() {
        let bytes = enc(&w);
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.bench_with_input(BenchmarkId::from_parameter(name), &bytes, |b, bytes| {
            b.iter(|| dec(black_box(bytes)))
        });
    }
    group.finish();

    let mut group = c.benchmark_group("deserialize_borrowed");
    let g = godot_bin::to_vec(&w).unwrap();
    group.throughput(Throughput::Bytes(g.len() as u64));
    group.bench_function("godot_bin", |b| {
        b.iter(|| godot_bin::from_slice::<WorldRef>(black_box(&g)).unwrap())
    });
    let p = postcard::to_allocvec(&w).unwrap();
    group.throughput(Throughput::Bytes(p.len() as u64));
    group.bench_function("postcard", |b| {
        b.iter(|| postcard::from_bytes::<WorldRef>(black_box(&p)).unwrap())
    });
    group.finish();

    let mut group = c.benchmark_group("deserialize_dynamic");
    group.throughput(Throughput::Bytes(g.len() as u64));
    group.bench_function("godot_bin_Variant", |b| {
        b.iter(|| godot_bin::from_slice::<Variant>(black_box(&g)).unwrap())
    });
    let j = serde_json::to_vec(&w).unwrap();
    group.throughput(Throughput::Bytes(j.len() as u64));
    group.bench_function("serde_json_Value", |b| {
        b.iter(|| serde_json::from_slice::<serde_json::Value>(black_box(&j)).unwrap())
    });
    group.finish();

    variants(c, &w);
}

/// `bench-data/` in cargo's target directory: the parent of `CARGO_TARGET_TMPDIR`,
/// which cargo sets for benches to `<target dir>/tmp` whatever `CARGO_TARGET_DIR` or
/// `--target-dir` say, so this needs no guess at the layout.
fn bench_data_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("CARGO_TARGET_TMPDIR has a parent")
        .join("bench-data")
}

/// The snapshot as a `Variant`, encoded and decoded in each dialect; writes the bytes
/// out first (see the module docs).
fn variants(c: &mut Criterion, w: &World) {
    let dir = bench_data_dir();
    std::fs::create_dir_all(&dir).unwrap();
    let mut group = c.benchmark_group("variant");
    for (major, dialect) in [(3, Dialect::Godot3), (4, Dialect::Godot4)] {
        let config = Config::new().dialect(dialect);
        let v = config.to_variant(w).unwrap();
        let bytes = config.to_vec(&v).unwrap();
        assert_eq!(
            bytes,
            config.to_vec(w).unwrap(),
            "Godot {major}: Variant bytes"
        );
        assert!(
            config.from_slice::<Variant>(&bytes).unwrap() == v,
            "Godot {major}: Variant round trip"
        );
        let path = dir.join(format!("world-{major}.bin"));
        std::fs::write(&path, &bytes).unwrap();
        eprintln!("wrote {} ({} bytes)", path.display(), bytes.len());

        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.bench_function(format!("encode/godot{major}"), |b| {
            b.iter(|| config.to_vec(black_box(&v)).unwrap())
        });
        group.bench_function(format!("decode/godot{major}"), |b| {
            b.iter(|| config.from_slice::<Variant>(black_box(&bytes)).unwrap())
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(30)
        .warm_up_time(std::time::Duration::from_millis(500))
        .measurement_time(std::time::Duration::from_secs(2));
    targets = bench
}
criterion_main!(benches);
