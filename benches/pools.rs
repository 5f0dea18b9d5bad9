//! 16 MiB pool arrays against a memcpy of the same size.
//!
//! `cargo bench --bench pools`; `scripts/bench-report.sh pools` gives each throughput as a
//! fraction of memcpy's. Every encode and decode, like `memcpy/fresh`, fills a fresh `Vec`,
//! so the allocation and its page faults are in both; `memcpy/prealloc` copies into one
//! allocated beforehand (the bare copy). Throughput counts the encoded bytes.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, SamplingMode, Throughput};
use godot_bin::{PoolByteArray, PoolRealArray, PoolVector3Array, Vector3};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

const BYTES: usize = 16 << 20;

#[derive(Serialize, Deserialize, PartialEq)]
struct Reals(#[serde(with = "godot_bin::pool::real")] Vec<f32>);

#[derive(Serialize, Deserialize, PartialEq)]
struct Vectors(#[serde(with = "godot_bin::pool::vector3")] Vec<Vector3>);

fn reals() -> Vec<f32> {
    (0..BYTES / 4).map(|i| i as f32 * 0.25).collect()
}

fn vectors() -> Vec<Vector3> {
    (0..BYTES / 12)
        .map(|i| Vector3::new(i as f32, -(i as f32), 0.5))
        .collect()
}

/// Benchmarks encode and decode of `value` under `name`, after checking its round trip.
fn pool<T: Serialize + DeserializeOwned + PartialEq>(c: &mut Criterion, name: &str, value: &T) {
    let bytes = godot_bin::to_vec(value).unwrap();
    assert!(
        godot_bin::from_slice::<T>(&bytes).unwrap() == *value,
        "{name} round trip"
    );
    let mut group = c.benchmark_group("pools/encode");
    group.sampling_mode(SamplingMode::Flat);
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.bench_function(name, |b| {
        b.iter(|| godot_bin::to_vec(black_box(value)).unwrap())
    });
    group.finish();
    let mut group = c.benchmark_group("pools/decode");
    group.sampling_mode(SamplingMode::Flat);
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.bench_function(name, |b| {
        b.iter(|| godot_bin::from_slice::<T>(black_box(&bytes)).unwrap())
    });
    group.finish();
}

fn bench(c: &mut Criterion) {
    let source: Vec<u8> = (0..BYTES).map(|i| i as u8).collect();
    let mut group = c.benchmark_group("pools/memcpy");
    group.sampling_mode(SamplingMode::Flat);
    group.throughput(Throughput::Bytes(BYTES as u64));
    group.bench_function("fresh", |b| b.iter(|| black_box(&source[..]).to_vec()));
    let mut target = vec![0u8; BYTES];
    group.bench_function("prealloc", |b| {
        b.iter(|| black_box(&mut target).copy_from_slice(black_box(&source)))
    });
    group.finish();

    pool(c, "real_with", &Reals(reals()));
    pool(c, "PoolRealArray", &PoolRealArray(reals()));
    pool(c, "vector3_with", &Vectors(vectors()));
    pool(c, "PoolVector3Array", &PoolVector3Array(vectors()));
    pool(c, "PoolByteArray", &PoolByteArray(source));
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));
    targets = bench
}
criterion_main!(benches);
