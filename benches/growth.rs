//! Whether the cost per element stays flat as a value grows: an Array of 10 thousand
//! and of 1 million small structs, encoded (to a new `Vec` and into a reused one)
//! and decoded, with postcard beside as the measure of what the machine's memory
//! adds at the larger size. Two shapes:
//! - `items`: an id, a name and a `Vector3`. A million structs and their names do not
//!   fit the caches, and each name is an allocation of its own, scattered over the
//!   heap when encoded and made anew when decoded;
//! - `points`: an id and two `Vector3`s, nothing on the heap, so the values and the
//!   bytes are read and written in order.
//!
//! A new output of 1 million elements is fresh pages the kernel must hand over.
//! Criterion reports each as elements a second.
//!
//! `cargo bench --bench growth` (criterion's options after `--`).

use std::fmt::Debug;
use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use godot_bin::Vector3;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Item {
    id: i32,
    name: String,
    pos: Vector3,
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Point {
    id: i32,
    pos: Vector3,
    vel: Vector3,
}

fn items(n: usize) -> Vec<Item> {
    (0..n)
        .map(|i| Item {
            id: i as i32,
            name: format!("item{}", i % 1000),
            pos: Vector3::new(i as f32, 0.5, -(i as f32)),
        })
        .collect()
}

fn points(n: usize) -> Vec<Point> {
    (0..n)
        .map(|i| Point {
            id: i as i32,
            pos: Vector3::new(i as f32, 0.5, -(i as f32)),
            vel: Vector3::new(1.0, 0.0, (i % 7) as f32),
        })
        .collect()
}

/// Benchmarks `shape` (made by `make`) at 10 thousand and 1 million elements.
fn shape<T>(c: &mut Criterion, shape: &str, make: fn(usize) -> Vec<T>)
where
    T: Serialize + DeserializeOwned + PartialEq + Debug,
{
    let mut group = c.benchmark_group(format!("growth/{shape}"));
    group.sample_size(10);
    for n in [10_000, 1_000_000] {
        let v = make(n);
        let bytes = godot_bin::to_vec(&v).unwrap();
        assert_eq!(godot_bin::from_slice::<Vec<T>>(&bytes).unwrap(), v);
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(BenchmarkId::new("encode", n), &v, |b, v| {
            b.iter(|| godot_bin::to_vec(black_box(v)).unwrap())
        });
        let mut buf = Vec::with_capacity(bytes.len());
        group.bench_with_input(BenchmarkId::new("encode_into", n), &v, |b, v| {
            b.iter(|| {
                buf.clear();
                godot_bin::to_vec_into(black_box(v), &mut buf).unwrap()
            })
        });
        group.bench_with_input(BenchmarkId::new("decode", n), &bytes, |b, bytes| {
            b.iter(|| godot_bin::from_slice::<Vec<T>>(black_box(bytes)).unwrap())
        });
        let p = postcard::to_allocvec(&v).unwrap();
        group.bench_with_input(BenchmarkId::new("postcard_encode", n), &v, |b, v| {
            b.iter(|| postcard::to_allocvec(black_box(v)).unwrap())
        });
        group.bench_with_input(BenchmarkId::new("postcard_decode", n), &p, |b, p| {
            b.iter(|| postcard::from_bytes::<Vec<T>>(black_box(p)).unwrap())
        });
    }
    group.finish();
}

fn bench(c: &mut Criterion) {
    shape(c, "items", items);
    shape(c, "points", points);
}

criterion_group!(benches, bench);
criterion_main!(benches);
