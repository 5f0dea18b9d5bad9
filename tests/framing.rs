//! Framing: length prefixes, limits, truncation and recovery, packets, Base64.

use godot_bin::framing::{self, Framing, VarReader, VarWriter, PACKET_PEER_STREAM_MAX};
use godot_bin::{Config, Dialect, ErrorKind, Variant};

fn frames(framing: Framing, values: &[Variant]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut w = VarWriter::new(&mut out, framing);
    for v in values {
        w.put_var(v).unwrap();
    }
    out
}

#[test]
fn prefix_endianness_and_payload() {
    let le = frames(Framing::StreamPeer { big_endian: false }, &[42.into()]);
    let be = frames(Framing::StreamPeer { big_endian: true }, &[42.into()]);
    let pps = frames(Framing::PacketPeerStream, &[42.into()]);
    let payload = godot_bin::to_vec(&42).unwrap();
    assert_eq!(le[..4], 8u32.to_le_bytes());
    assert_eq!(be[..4], 8u32.to_be_bytes());
    assert_eq!(pps[..4], 8u32.to_le_bytes());
    // The value itself stays little-endian whatever the prefix.
    for f in [&le, &be, &pps] {
        assert_eq!(f[4..], payload[..]);
    }
}

#[test]
fn values_one_by_one_then_clean_end() {
    let values: Vec<Variant> = vec![1.into(), "two".into(), Variant::Array(vec![3.into()])];
    let bytes = frames(Framing::STORE_VAR, &values);
    let mut r = VarReader::new(&bytes[..], Framing::STORE_VAR);
    for v in &values {
        assert_eq!(r.get_var::<Variant>().unwrap().as_ref(), Some(v));
    }
    assert!(r.get_var::<Variant>().unwrap().is_none());
    assert_eq!(framing::read_all::<Variant, _>(&bytes[..]).unwrap(), values);
}

#[test]
fn oversized_frame_is_refused_before_allocating() {
    let mut bytes = u32::MAX.to_le_bytes().to_vec();
    bytes.extend_from_slice(&[0; 8]);
    let err = VarReader::new(&bytes[..], Framing::STORE_VAR)
        .get_var::<Variant>()
        .unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::FrameTooLarge { len, .. } if *len == u32::MAX as usize)
    );
    assert_eq!(err.offset(), Some(0));
    let err = VarWriter::new(Vec::new(), Framing::PacketPeerStream)
        .put_var(&"x".repeat(PACKET_PEER_STREAM_MAX))
        .unwrap_err();
    assert!(matches!(
        err.kind(),
        ErrorKind::FrameTooLarge {
            max: PACKET_PEER_STREAM_MAX,
            ..
        }
    ));
    let small = VarReader::new(
        &frames(Framing::STORE_VAR, &["abc".into()])[..],
        Framing::STORE_VAR,
    )
    .max_frame_len(8)
    .get_var::<Variant>()
    .unwrap_err();
    assert!(matches!(
        small.kind(),
        ErrorKind::FrameTooLarge { len: 12, max: 8 }
    ));
}

#[test]
fn truncated_frames_are_errors() {
    let bytes = frames(Framing::STORE_VAR, &["hello".into()]);
    for n in 1..bytes.len() {
        let err = VarReader::new(&bytes[..n], Framing::STORE_VAR)
            .get_var::<Variant>()
            .unwrap_err();
        assert!(err.is_eof(), "{n}: {err}");
    }
}

#[test]
fn a_bad_frame_leaves_the_reader_at_the_next_one() {
    let mut bytes = frames(Framing::STORE_VAR, &["not an int".into()]);
    bytes.extend(frames(Framing::STORE_VAR, &[7.into()]));
    let mut r = VarReader::new(&bytes[..], Framing::STORE_VAR);
    let err = r.get_var::<i32>().unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::InvalidType { .. }));
    // Offsets count from the start of the stream: the value starts after the prefix.
    assert_eq!(err.offset(), Some(4));
    assert_eq!(r.get_var::<i32>().unwrap(), Some(7));
}

#[test]
fn packets_and_dialects() {
    let g4 = Config::new().dialect(Dialect::Godot4);
    let packet =
        framing::encode_packet(g4, &Variant::from(godot_bin::Vector2i::new(1, -2))).unwrap();
    assert_eq!(packet[0], 6);
    assert_eq!(
        framing::decode_packet::<Variant>(g4, &packet).unwrap(),
        godot_bin::Vector2i::new(1, -2).into()
    );
    let mut out = Vec::new();
    VarWriter::new(&mut out, Framing::PacketPeerStream)
        .with_config(g4)
        .put_var(&vec![1, 2])
        .unwrap();
    assert_eq!(out[4], 0x1c, "Godot 4 Array id");
    let back: Vec<i32> = VarReader::new(&out[..], Framing::PacketPeerStream)
        .with_config(g4)
        .get_var()
        .unwrap()
        .unwrap();
    assert_eq!(back, [1, 2]);
}

#[test]
fn base64() {
    let text = framing::variant_to_base64(&Variant::from("hi")).unwrap();
    assert_eq!(framing::base64_to_variant::<String>(&text).unwrap(), "hi");
    let err = framing::base64_to_variant::<Variant>("not base64!").unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::InvalidBase64(_)));
}
