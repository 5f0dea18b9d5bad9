//! The tokio codec (feature `tokio`): the same frames as the blocking writer, typed and
//! `Variant` decoding, limits, partial input, errors and a socket round trip.
#![cfg(feature = "tokio")]

use bytes::BytesMut;
use futures::{SinkExt, StreamExt};
use godot_bin::codec::VarCodec;
use godot_bin::framing::{Framing, VarWriter, PACKET_PEER_STREAM_RECV_MAX};
use godot_bin::{Config, Dialect, ErrorKind, PoolByteArray, Quat, Variant, Vector3};
use serde::{Deserialize, Serialize};
use tokio_util::codec::{Decoder, Encoder, FramedRead, FramedWrite};

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
enum Msg {
    Move { position: Vector3, rotation: Quat },
    Chat(String),
    Leave,
}

fn messages() -> Vec<Msg> {
    vec![
        Msg::Move {
            position: Vector3::new(1.0, 2.5, -3.0),
            rotation: Quat::new(0.0, 0.6, 0.0, 0.8),
        },
        Msg::Chat("hello".into()),
        Msg::Leave,
    ]
}

#[test]
fn encodes_what_the_blocking_writer_writes() {
    let g4 = Config::new().dialect(Dialect::Godot4);
    for framing in [
        Framing::PacketPeerStream,
        Framing::StreamPeer { big_endian: true },
    ] {
        let mut codec = VarCodec::<Msg>::new(framing).with_config(g4);
        let mut buf = BytesMut::new();
        let mut w = VarWriter::new(Vec::new(), framing).with_config(g4);
        for m in messages() {
            codec.encode(&m, &mut buf).unwrap();
            w.put_var(&m).unwrap();
        }
        assert_eq!(buf[..], w.get_ref()[..]);
        for m in messages() {
            assert_eq!(codec.decode(&mut buf).unwrap(), Some(m));
        }
        assert_eq!(codec.decode(&mut buf).unwrap(), None);
    }
}

#[test]
fn decodes_byte_by_byte_and_as_variant() {
    let mut wire = BytesMut::new();
    let mut codec = VarCodec::<Variant>::new(Framing::STORE_VAR);
    for m in messages() {
        codec.encode(m, &mut wire).unwrap();
    }
    let mut buf = BytesMut::new();
    let mut got = Vec::new();
    for &b in wire.iter() {
        buf.extend_from_slice(&[b]);
        if let Some(v) = codec.decode(&mut buf).unwrap() {
            got.push(v);
        }
    }
    assert!(buf.is_empty());
    assert_eq!(got.len(), 3);
    assert_eq!(got[2], Variant::from("Leave"));
    assert_eq!(
        got[1].get("Chat"),
        Some(&Variant::from("hello")),
        "{}",
        got[1]
    );
}

#[test]
fn limits_errors_and_offsets() {
    // Encoding refuses what a default PacketPeerStream cannot receive, and adds nothing.
    let mut codec = VarCodec::<Variant>::new(Framing::PacketPeerStream);
    let mut buf = BytesMut::new();
    let err = codec
        .encode(PoolByteArray(vec![0; 65532 - 8]), &mut buf)
        .unwrap_err();
    assert!(matches!(
        err.kind(),
        ErrorKind::FrameTooLarge {
            len: 65532,
            max: PACKET_PEER_STREAM_RECV_MAX
        }
    ));
    assert!(buf.is_empty());
    // A value that cannot be encoded adds nothing either.
    assert!(codec.encode(u64::MAX, &mut buf).is_err());
    assert!(buf.is_empty());

    // Decoding: a bad value is an error at its stream offset, then the next frame comes.
    let mut codec = VarCodec::<i32>::new(Framing::STORE_VAR);
    codec.encode(1, &mut buf).unwrap();
    codec.encode("two", &mut buf).unwrap();
    codec.encode(3, &mut buf).unwrap();
    assert_eq!(codec.decode(&mut buf).unwrap(), Some(1));
    let err = codec.decode(&mut buf).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::InvalidType { .. }));
    assert_eq!(err.offset(), Some(12 + 4));
    assert_eq!(codec.decode(&mut buf).unwrap(), Some(3));

    // An oversized length is refused before buffering, at the prefix's offset, and
    // stays refused.
    let mut codec = VarCodec::<Variant>::new(Framing::STORE_VAR).max_frame_len(16);
    let mut buf = BytesMut::from(&[100u8, 0, 0, 0][..]);
    for _ in 0..2 {
        let err = codec.decode(&mut buf).unwrap_err();
        assert!(matches!(
            err.kind(),
            ErrorKind::FrameTooLarge { len: 100, max: 16 }
        ));
        assert_eq!(err.offset(), Some(0));
    }

    // A lying length within the limit reserves little ahead of the data.
    let mut codec = VarCodec::<Variant>::new(Framing::STORE_VAR);
    let mut buf = BytesMut::from(&(8u32 << 20).to_le_bytes()[..]);
    assert_eq!(codec.decode(&mut buf).unwrap(), None);
    assert!(buf.capacity() < 128 << 10, "{}", buf.capacity());

    // The input ends inside a frame.
    let mut codec = VarCodec::<Variant>::new(Framing::STORE_VAR);
    for (bytes, what, offset) in [
        (&[8u8, 0][..], "a frame length", 2),
        (&[8, 0, 0, 0, 2, 0][..], "a frame", 6),
    ] {
        let mut buf = BytesMut::from(bytes);
        let err = codec.decode_eof(&mut buf).unwrap_err();
        assert!(
            matches!(err.kind(), ErrorKind::Eof(w) if *w == what),
            "{err}"
        );
        assert_eq!(err.offset(), Some(offset));
        assert!(err.is_eof());
    }
    assert_eq!(codec.decode_eof(&mut BytesMut::new()).unwrap(), None);
}

#[tokio::test]
async fn framed_socket_round_trip() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let g4 = Config::new().dialect(Dialect::Godot4);
    let server = tokio::spawn(async move {
        let (socket, _) = listener.accept().await.unwrap();
        let codec = VarCodec::<Msg>::new(Framing::PacketPeerStream).with_config(g4);
        let mut framed = tokio_util::codec::Framed::new(socket, codec);
        let mut got = Vec::new();
        while let Some(msg) = framed.next().await {
            let msg = msg.unwrap();
            // One Framed reads one type and sends any other.
            framed.send(("ack", got.len() as i64)).await.unwrap();
            got.push(msg);
        }
        got
    });
    let socket = tokio::net::TcpStream::connect(addr).await.unwrap();
    let (r, w) = socket.into_split();
    let mut out = FramedWrite::new(
        w,
        VarCodec::<Variant>::new(Framing::PacketPeerStream).with_config(g4),
    );
    let mut input = FramedRead::new(
        r,
        VarCodec::<(String, i64)>::new(Framing::PacketPeerStream).with_config(g4),
    );
    for (i, m) in messages().into_iter().enumerate() {
        out.send(m).await.unwrap();
        let ack = input.next().await.unwrap().unwrap();
        assert_eq!(ack, ("ack".to_string(), i as i64));
    }
    drop(out);
    let got = tokio::time::timeout(std::time::Duration::from_secs(10), server)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(got, messages());
}
