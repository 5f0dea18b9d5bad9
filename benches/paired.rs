//! The world snapshot's typed goals as paired ratios: godot_bin and postcard run in
//! turn, one operation each, inside the same criterion sample, so both meet the same
//! moment of this machine (whose speed swings by a third from minute to minute, which
//! moves two benchmarks timed one after the other apart). Each sample gives a ratio,
//! godot_bin's time over postcard's (the goals' measure); the table printed at the end gives their median
//! and quartiles.
//!
//! `cargo bench --bench paired` (criterion's options after `--`); criterion's own
//! lines time godot_bin alone, postcard's time running beside it.

use std::cell::{Cell, RefCell};
use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::measurement::WallTime;
use criterion::{criterion_group, criterion_main, BenchmarkGroup, Criterion};
use godot_bin::{PoolStringArray, Quat, Vector3};
use serde::{Deserialize, Serialize};

include!("common/world_data.rs");

/// Criterion's samples per benchmark; its warm-up calls come before them, and are
/// left out.
const SAMPLES_PER_BENCH: usize = 100;

thread_local! {
    /// Per call of each pair: (godot_bin's time, postcard's time).
    static SAMPLES: RefCell<Vec<(&'static str, Duration, Duration)>> = const { RefCell::new(Vec::new()) };
    /// Which of the two goes first in a call's first iteration: swapped every call,
    /// so that neither goes first more often when a call has an odd count.
    static OURS_FIRST: Cell<bool> = const { Cell::new(true) };
}

/// Times `ours` and `theirs` in turn, `iters` times each, the order swapped every
/// iteration and every call; criterion is given godot_bin's time, the pair's are kept.
fn paired(
    name: &'static str,
    iters: u64,
    ours: &mut dyn FnMut(),
    theirs: &mut dyn FnMut(),
) -> Duration {
    let time = |f: &mut dyn FnMut()| {
        let t = Instant::now();
        f();
        t.elapsed()
    };
    let (mut a, mut b) = (Duration::ZERO, Duration::ZERO);
    let first = OURS_FIRST.with(|f| f.replace(!f.get()));
    for i in 0..iters {
        if (i % 2 == 0) == first {
            a += time(ours);
            b += time(theirs);
        } else {
            b += time(theirs);
            a += time(ours);
        }
    }
    SAMPLES.with(|s| s.borrow_mut().push((name, a, b)));
    a
}

/// One pair as a criterion benchmark `id`, reported as `name`.
fn pair(
    group: &mut BenchmarkGroup<WallTime>,
    id: &str,
    name: &'static str,
    mut ours: impl FnMut(),
    mut theirs: impl FnMut(),
) {
    group.bench_function(id, |b| {
        b.iter_custom(|n| paired(name, n, &mut ours, &mut theirs))
    });
}

fn bench(c: &mut Criterion) {
    let w = world();
    let g = godot_bin::to_vec(&w).unwrap();
    let p = postcard::to_allocvec(&w).unwrap();
    assert!(same(&godot_bin::from_slice(&g).unwrap(), &w));
    assert!(same(
        &godot_bin::from_slice(&g).unwrap(),
        &postcard::from_bytes(&p).unwrap()
    ));
    let (g, p) = (black_box(&g[..]), black_box(&p[..]));
    let mut group = c.benchmark_group("paired");
    group.sample_size(SAMPLES_PER_BENCH);
    pair(
        &mut group,
        "encode",
        "encode (to_vec, to_allocvec)",
        || drop(black_box(godot_bin::to_vec(black_box(&w)).unwrap())),
        || drop(black_box(postcard::to_allocvec(black_box(&w)).unwrap())),
    );
    pair(
        &mut group,
        "decode",
        "decode",
        || {
            drop(black_box(
                godot_bin::from_slice::<World>(black_box(g)).unwrap(),
            ))
        },
        || {
            drop(black_box(
                postcard::from_bytes::<World>(black_box(p)).unwrap(),
            ))
        },
    );
    pair(
        &mut group,
        "decode_borrowed",
        "decode, borrowed `&str`",
        || {
            drop(black_box(
                godot_bin::from_slice::<WorldRef>(black_box(g)).unwrap(),
            ))
        },
        || {
            drop(black_box(
                postcard::from_bytes::<WorldRef>(black_box(p)).unwrap(),
            ))
        },
    );
    group.finish();
    report();
}

/// The `q` quantile of sorted `v`, between its two nearest ranks.
fn quantile(v: &[f64], q: f64) -> f64 {
    let at = (v.len() - 1) as f64 * q;
    let (lo, hi) = (at.floor() as usize, at.ceil() as usize);
    v[lo] + (v[hi] - v[lo]) * (at - lo as f64)
}

fn report() {
    let samples = SAMPLES.with(|s| std::mem::take(&mut *s.borrow_mut()));
    println!();
    println!(
        "| world snapshot, paired | godot_bin time / postcard time: median | quartiles | samples |"
    );
    println!("|---|--:|--:|--:|");
    let mut names: Vec<&str> = samples.iter().map(|s| s.0).collect();
    names.dedup();
    for name in names {
        // The last calls of each pair are criterion's samples; the first, its warm-up.
        let calls: Vec<_> = samples.iter().filter(|s| s.0 == name).collect();
        let mut r: Vec<f64> = calls[calls.len().saturating_sub(SAMPLES_PER_BENCH)..]
            .iter()
            .filter(|s| !s.2.is_zero())
            .map(|s| s.1.as_secs_f64() / s.2.as_secs_f64())
            .collect();
        r.sort_by(f64::total_cmp);
        if r.is_empty() {
            continue;
        }
        println!(
            "| {name} | {:.2} | {:.2}-{:.2} | {} |",
            quantile(&r, 0.5),
            quantile(&r, 0.25),
            quantile(&r, 0.75),
            r.len()
        );
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
