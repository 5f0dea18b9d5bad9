//! `VarReader` over any byte stream, in every framing: what a TCP server's `get_var`
//! loop sees. Never panics, and matches a plain reference splitter frame by frame:
//! each frame gives the value (or error) `from_slice` gives for its bytes, and a
//! stream that loses its boundaries (oversized prefix, cut-off frame) must then refuse
//! every call with `Desynchronized` instead of reading a frame's middle as a length.
//! The source hands out bytes in small pieces and can fail with `WouldBlock`, which
//! the reader documents as resumable without losing or repeating bytes.
//!
//! Input: one selector byte (`godot_bin_fuzz::stream_config`; bits 5-6 the read size,
//! bit 7 a `WouldBlock` before every read), then the stream.
#![no_main]

use std::io::{self, Read};

use godot_bin::framing::VarReader;
use godot_bin::{ErrorKind, Variant};
use godot_bin_fuzz::{check_frame, split_frames, stream_config, End, MAX_FRAME};
use libfuzzer_sys::fuzz_target;

/// A socket-like source: at most `chunk` bytes a read, and optionally `WouldBlock`
/// before each read that returns data.
struct Trickle<'a> {
    data: &'a [u8],
    chunk: usize,
    block: bool,
    blocked: bool,
}

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.block && !self.blocked && !buf.is_empty() {
            self.blocked = true;
            return Err(io::ErrorKind::WouldBlock.into());
        }
        self.blocked = false;
        let n = buf.len().min(self.chunk);
        self.data.read(&mut buf[..n])
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&sel, stream)) = data.split_first() else { return };
    let (framing, cfg) = stream_config(sel);
    let chunk = [usize::MAX, 1, 3, 7][usize::from((sel >> 5) & 3)];
    let source = Trickle { data: stream, chunk, block: sel & 128 != 0, blocked: false };
    let mut r = VarReader::new(source, framing).with_config(cfg).max_frame_len(MAX_FRAME);

    let (frames, end) = split_frames(stream, framing, MAX_FRAME);
    let mut next = || loop {
        match r.get_var::<Variant>() {
            Err(e) if matches!(e.kind(), ErrorKind::Io(_)) => {
                assert!(!r.is_desynchronized(), "an I/O error desynchronized the reader");
            }
            got => return (got, r.is_desynchronized(), r.position()),
        }
    };
    for &(at, frame) in &frames {
        let (got, broken, pos) = next();
        assert!(!broken, "desynchronized on a whole frame at {at}");
        assert_eq!(pos, at + frame.len(), "position after the frame at {at}");
        let got = got.map(|v| v.expect("None before the end of the stream"));
        check_frame(&cfg, frame, &got);
    }
    let (last, broken, _) = next();
    match end {
        End::Clean => {
            assert!(matches!(last, Ok(None)), "expected a clean end, got {last:?}");
            assert!(matches!(next().0, Ok(None)), "a clean end must stay clean");
            return;
        }
        End::TooLarge(at) => {
            let e = last.expect_err("an oversized frame must be refused");
            assert!(matches!(e.kind(), ErrorKind::FrameTooLarge { .. }), "{e}");
            assert_eq!(e.offset(), Some(at), "offset of the oversized frame");
        }
        End::CutOff => {
            let e = last.expect_err("a cut-off frame must be an error");
            assert!(matches!(e.kind(), ErrorKind::Eof(_)), "{e}");
        }
    }
    assert!(broken, "lost frame boundaries but not desynchronized");
    for _ in 0..2 {
        let (again, _, _) = next();
        let e = again.expect_err("a desynchronized reader must keep refusing");
        assert!(matches!(e.kind(), ErrorKind::Desynchronized), "{e}");
    }
});
