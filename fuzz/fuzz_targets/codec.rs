//! The tokio codec over any byte stream, arriving in pieces of any size: what a
//! `Framed` socket feeds it. Never panics; gives per frame what `from_slice` gives for
//! the frame's bytes, whatever the chunking; an oversized prefix fails and keeps
//! failing (it stays at the front of the buffer); `decode_eof` reports a cut-off frame;
//! and every decoded value goes back through the codec's own `encode` and decodes equal.
//!
//! Input: a selector byte (`godot_bin_fuzz::stream_config`), a count `n`, `n` chunk
//! sizes (used in turn; none, or all zero, means one chunk), then the stream.
#![no_main]

use bytes::BytesMut;
use godot_bin::codec::VarCodec;
use godot_bin::{ErrorKind, Variant};
use godot_bin_fuzz::{check_frame, hex, reencode_allowed, split_frames, stream_config, End, MAX_FRAME};
use libfuzzer_sys::fuzz_target;
use tokio_util::codec::{Decoder, Encoder};

fuzz_target!(|data: &[u8]| {
    let [sel, n, rest @ ..] = data else { return };
    let Some((sizes, stream)) = rest.split_at_checked(usize::from(*n).min(rest.len())) else { return };
    let (framing, cfg) = stream_config(*sel);
    let mut codec = VarCodec::<Variant>::new(framing).with_config(cfg).max_frame_len(MAX_FRAME);

    // Feed the chunks, decoding after each one until the codec wants more bytes.
    let mut buf = BytesMut::new();
    let mut got = Vec::new();
    let mut fed = 0;
    let all_zero = sizes.iter().all(|&s| s == 0);
    let mut sizes = sizes.iter().map(|&s| usize::from(s)).cycle();
    let mut stuck = None;
    while fed < stream.len() && stuck.is_none() {
        let step = if all_zero { stream.len() } else { sizes.next().unwrap() };
        let step = step.min(stream.len() - fed);
        buf.extend_from_slice(&stream[fed..fed + step]);
        fed += step;
        loop {
            match codec.decode(&mut buf) {
                Ok(Some(v)) => got.push(Ok(v)),
                Ok(None) => break,
                Err(e) if matches!(e.kind(), ErrorKind::FrameTooLarge { .. }) => {
                    stuck = Some(e);
                    break;
                }
                Err(e) => got.push(Err(e)),
            }
        }
    }
    // The end of the input: decode_eof until it has nothing more.
    let mut eof_err = None;
    while stuck.is_none() {
        // Whether a whole frame is buffered: else an error can only be the cut-off one.
        let whole = buf.len() >= 4 && buf.len() - 4 >= frame_len(&buf, framing);
        match codec.decode_eof(&mut buf) {
            Ok(Some(v)) => got.push(Ok(v)),
            Ok(None) => break,
            Err(e) if matches!(e.kind(), ErrorKind::FrameTooLarge { .. }) => stuck = Some(e),
            Err(e) if !whole => {
                assert!(matches!(e.kind(), ErrorKind::Eof(_)), "{e}");
                eof_err = Some(e);
                break;
            }
            Err(e) => got.push(Err(e)),
        }
    }

    // Against the reference splitter.
    let (frames, end) = split_frames(stream, framing, MAX_FRAME);
    assert_eq!(got.len(), frames.len(), "frame count; stream {}", hex(stream));
    for ((_, frame), got) in frames.iter().zip(&got) {
        check_frame(&cfg, frame, got);
    }
    match end {
        End::Clean => assert!(stuck.is_none() && eof_err.is_none() && buf.is_empty()),
        End::CutOff => assert!(eof_err.is_some(), "cut-off frame not reported: {stuck:?}"),
        End::TooLarge(at) => {
            let e = stuck.expect("oversized frame not refused");
            assert_eq!(e.offset(), Some(at), "offset of the oversized frame");
            // It stays at the front: the next call fails the same way.
            let again = codec.decode(&mut buf).expect_err("oversized frame accepted on retry");
            assert!(matches!(again.kind(), ErrorKind::FrameTooLarge { .. }), "{again}");
        }
    }

    // Every value back through the codec's encoder (default limits, so a canonical
    // encoding a little longer than the input still fits) and its decoder.
    for v in got.iter().flatten() {
        let mut enc = VarCodec::<Variant>::new(framing).with_config(cfg);
        let mut wire = BytesMut::new();
        match enc.encode(v, &mut wire) {
            Ok(()) => {}
            Err(e) if reencode_allowed(&e) => continue,
            Err(e) => panic!("decoded value does not re-encode: {e}\n  value: {v:?}"),
        }
        let back = enc.decode(&mut wire).expect("our own frame decodes").expect("a whole frame");
        assert!(wire.is_empty(), "bytes left after our own frame");
        assert_eq!(&back, v, "codec round trip changed the value");
    }
});

/// The length the frame at the front of `buf` announces (0 when no whole prefix).
fn frame_len(buf: &[u8], framing: godot_bin::framing::Framing) -> usize {
    buf.get(..4).map_or(0, |p| framing.frame_len(p.try_into().unwrap()))
}
