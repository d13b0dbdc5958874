//! The frame every remoting command travels in: a 4-byte big-endian length (of all that follows),
//! then the header-length word, the header and the body. A length is checked against a limit
//! before anything is allocated: a garbage or hostile prefix must not make us reserve gigabytes.

use std::io::{self, Read, Write};

/// Frames larger than this are refused (a running-info answer of a client holding thousands of
/// queues is a few MiB; Java's own decoder allows 16 MiB by default).
pub const MAX_FRAME: u64 = 64 * 1024 * 1024;

/// Why no frame came.
#[derive(Debug)]
pub enum ReadError {
    /// The peer closed the connection, before a frame began or in the middle of one.
    Closed {
        mid_frame: bool,
    },
    TooLarge {
        len: u64,
        max: u64,
    },
    /// A frame shorter than its own header-length word.
    Short(u64),
    Io(io::Error),
}

/// Writes one frame whose content (header-length word, header, body) is `content`.
pub fn write_frame(out: &mut impl Write, content: &[u8]) -> io::Result<()> {
    let len = u32::try_from(content.len()).map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "frame over 4 GiB"))?;
    let mut frame = Vec::with_capacity(4 + content.len());
    frame.extend_from_slice(&len.to_be_bytes());
    frame.extend_from_slice(content);
    out.write_all(&frame)?;
    out.flush()
}

/// Reads one frame and returns its content (everything after the length), at most `max` bytes.
pub fn read_frame(input: &mut impl Read, max: u64) -> Result<Vec<u8>, ReadError> {
    let mut len = [0u8; 4];
    read_all(input, &mut len, false)?;
    let len = u64::from(u32::from_be_bytes(len));
    if len > max {
        return Err(ReadError::TooLarge { len, max });
    }
    if len < 4 {
        return Err(ReadError::Short(len));
    }
    let mut content = vec![0u8; len as usize];
    read_all(input, &mut content, true)?;
    Ok(content)
}

/// `read_exact`, telling a close before the first byte from one inside the frame.
fn read_all(input: &mut impl Read, buf: &mut [u8], in_frame: bool) -> Result<(), ReadError> {
    let mut filled = 0;
    while filled < buf.len() {
        match input.read(&mut buf[filled..]) {
            Ok(0) => return Err(ReadError::Closed { mid_frame: in_frame || filled > 0 }),
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(ReadError::Io(e)),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_round_trips() {
        let mut wire = Vec::new();
        write_frame(&mut wire, b"\0\0\0\x02{}body").unwrap();
        assert_eq!(&wire[..4], &[0, 0, 0, 10]);
        assert_eq!(read_frame(&mut &wire[..], MAX_FRAME).unwrap(), b"\0\0\0\x02{}body");
    }

    #[test]
    fn a_huge_length_is_refused_before_anything_is_allocated() {
        let wire = [0xFFu8, 0xFF, 0xFF, 0xF0];
        assert!(matches!(read_frame(&mut &wire[..], MAX_FRAME), Err(ReadError::TooLarge { len: 0xFFFF_FFF0, .. })));
    }

    #[test]
    fn a_close_is_told_apart_by_where_it_happens() {
        assert!(matches!(read_frame(&mut &[][..], MAX_FRAME), Err(ReadError::Closed { mid_frame: false })));
        assert!(matches!(read_frame(&mut &[0u8, 0][..], MAX_FRAME), Err(ReadError::Closed { mid_frame: true })));
        assert!(matches!(read_frame(&mut &[0u8, 0, 0, 9, 1, 2][..], MAX_FRAME), Err(ReadError::Closed { mid_frame: true })));
        assert!(matches!(read_frame(&mut &[0u8, 0, 0, 2, 1, 2][..], MAX_FRAME), Err(ReadError::Short(2))));
    }
}
