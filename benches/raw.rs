//! The raw StreamPeer layout against postcard and bincode 2 (fixed-size integers) on
//! the Freeblox packets: one STREAM_TRANSFORM, one PLAYER_MOVEMENT, and a batch of
//! 1000 transforms.
//!
//! `cargo bench --bench raw`; `scripts/bench-report.sh raw` prints the table. Groups
//! are `raw/<shape>/{serialize,deserialize}/<format>`.

#[path = "../examples/freeblox/protocol.rs"]
#[allow(dead_code)]
mod protocol;

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use godot_bin::{Quat, Vector3};
use protocol::Packet;

fn transform(i: u32) -> Packet {
    let f = i as f32;
    Packet::StreamTransform {
        object: format!("3f2a9c1e-0b7d-4c55-9e61-{i:012}"),
        position: Vector3::new(f, 1.5, -f),
        rotation: Quat::new(0.0, 0.5, 0.0, 0.866),
        linear_velocity: Vector3::new(0.25, 0.0, f / 8.0),
        angular_velocity: Vector3::default(),
    }
}

fn movement() -> Packet {
    Packet::PlayerMovement {
        player: "3f2a9c1e-0b7d-4c55-9e61-000000000042".into(),
        linear_velocity: Vector3::new(1.0, 0.0, -1.0),
        look_at: Vector3::new(0.0, 1.0, 0.0),
        jump: true,
    }
}

fn bincode2() -> impl bincode2::config::Config {
    bincode2::config::standard().with_fixed_int_encoding()
}

fn shape<T>(c: &mut Criterion, name: &str, value: &T)
where
    T: serde::Serialize + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug,
{
    let raw = protocol::config();
    let ours = raw.to_vec(value).unwrap();
    let pc = postcard::to_allocvec(value).unwrap();
    let bc = bincode2::serde::encode_to_vec(value, bincode2()).unwrap();
    assert_eq!(&raw.from_slice::<T>(&ours).unwrap(), value);
    assert_eq!(&postcard::from_bytes::<T>(&pc).unwrap(), value);
    assert_eq!(
        &bincode2::serde::decode_from_slice::<T, _>(&bc, bincode2())
            .unwrap()
            .0,
        value
    );

    let mut g = c.benchmark_group(format!("raw/{name}/serialize"));
    g.throughput(Throughput::Bytes(ours.len() as u64));
    g.bench_function("godot_bin raw", |b| {
        b.iter(|| raw.to_vec(black_box(value)).unwrap())
    });
    g.bench_function("postcard", |b| {
        b.iter(|| postcard::to_allocvec(black_box(value)).unwrap())
    });
    g.bench_function("bincode 2 fixint", |b| {
        b.iter(|| bincode2::serde::encode_to_vec(black_box(value), bincode2()).unwrap())
    });
    g.finish();

    let mut g = c.benchmark_group(format!("raw/{name}/deserialize"));
    g.throughput(Throughput::Bytes(ours.len() as u64));
    g.bench_function("godot_bin raw", |b| {
        b.iter(|| raw.from_slice::<T>(black_box(&ours)).unwrap())
    });
    g.bench_function("postcard", |b| {
        b.iter(|| postcard::from_bytes::<T>(black_box(&pc)).unwrap())
    });
    g.bench_function("bincode 2 fixint", |b| {
        b.iter(|| bincode2::serde::decode_from_slice::<T, _>(black_box(&bc), bincode2()).unwrap())
    });
    g.finish();
}

fn bench(c: &mut Criterion) {
    shape(c, "stream_transform", &transform(7));
    shape(c, "player_movement", &movement());
    let batch: Vec<Packet> = (0..1000).map(transform).collect();
    shape(c, "transform_batch", &batch);
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
    targets = bench
}
criterion_main!(benches);
