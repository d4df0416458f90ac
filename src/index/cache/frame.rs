//! The frame every file the caches keep on disk shares: magic bytes, a format number, the
//! build's identity, then the payload's length and checksum, then the payload. A file is
//! read only when all of these are this build's and the payload is whole.

use super::codec::{Reader, Writer};

/// Starts a framed file in `out`: the header, with room for the payload's length and
/// checksum. Returns where that room is, for [`finish`]; the payload follows.
pub(crate) fn begin(out: &mut Vec<u8>, magic: &[u8; 8], format: u32, identity: &str) -> usize {
    out.extend_from_slice(magic);
    out.extend_from_slice(&format.to_le_bytes());
    Writer(out).str(identity);
    let sums_at = out.len();
    out.extend_from_slice(&[0u8; 16]);
    sums_at
}

/// Fills in the length and checksum of the payload written after `sums_at`.
pub(crate) fn finish(out: &mut [u8], sums_at: usize) {
    let payload_at = sums_at + 16;
    let payload = out.get(payload_at..).unwrap_or_default();
    let mut sums = [0u8; 16];
    let (len, sum) = sums.split_at_mut(8);
    len.copy_from_slice(&(payload.len() as u64).to_le_bytes());
    sum.copy_from_slice(&super::checksum(payload).to_le_bytes());
    if let Some(slot) = out.get_mut(sums_at..payload_at) {
        slot.copy_from_slice(&sums);
    }
}

/// The payload of a framed file and where it starts in `bytes`: `None` when the file is
/// not whole, not of this kind, format and build.
pub(crate) fn open<'a>(
    bytes: &'a [u8],
    magic: &[u8; 8],
    format: u32,
    identity: &str,
) -> Option<(usize, &'a [u8])> {
    let mut r = Reader::new(bytes);
    if r.take(magic.len())? != magic {
        return None;
    }
    if u32::from_le_bytes(r.take(4)?.try_into().ok()?) != format {
        return None;
    }
    if r.str()? != identity {
        return None;
    }
    let len = usize::try_from(u64::from_le_bytes(r.take(8)?.try_into().ok()?)).ok()?;
    let sum = u64::from_le_bytes(r.take(8)?.try_into().ok()?);
    let start = bytes.len().checked_sub(len)?;
    let payload = r.take(len)?;
    if !r.at_end() || super::checksum(payload) != sum {
        return None;
    }
    Some((start, payload))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn framed(payload: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        let at = begin(&mut out, b"TESTFRAM", 3, "build one");
        out.extend_from_slice(payload);
        finish(&mut out, at);
        out
    }

    #[test]
    fn a_frame_opens_to_its_payload_and_nothing_else() {
        let bytes = framed(b"the payload");
        let (start, payload) = open(&bytes, b"TESTFRAM", 3, "build one").unwrap();
        assert_eq!(payload, b"the payload");
        assert_eq!(&bytes[start..], b"the payload");
        assert!(open(&bytes, b"OTHERFRM", 3, "build one").is_none());
        assert!(open(&bytes, b"TESTFRAM", 4, "build one").is_none());
        assert!(open(&bytes, b"TESTFRAM", 3, "build two").is_none());
        for cut in 0..bytes.len() {
            assert!(open(&bytes[..cut], b"TESTFRAM", 3, "build one").is_none());
        }
        for at in 0..bytes.len() {
            let mut bad = bytes.clone();
            bad[at] ^= 0x10;
            assert!(open(&bad, b"TESTFRAM", 3, "build one").is_none(), "{at}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(open(&longer, b"TESTFRAM", 3, "build one").is_none());
    }
}
