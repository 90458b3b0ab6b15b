//! Chrome's native messaging framing: each message is a 32-bit length in native byte order
//! followed by that many bytes of UTF-8 JSON, on stdin (from Chrome) and stdout (to Chrome).
//!
//! A message longer than [`MAX_IN`] is never buffered: its bytes are read and dropped, and the
//! reader reports [`Frame::TooLarge`] so the host can answer with an error and go on.

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// Longest message the host accepts from Chrome: only control messages travel this way.
pub const MAX_IN: usize = 64 * 1024;
/// Longest message Chrome accepts from a host.
pub const MAX_OUT: usize = 1024 * 1024;

/// One read from Chrome.
#[derive(Debug, PartialEq, Eq)]
pub enum Frame {
    /// A message's bytes.
    Message(Vec<u8>),
    /// A message longer than [`MAX_IN`], skipped.
    TooLarge(u64),
    /// Chrome closed the port.
    Closed,
}

/// Reads one frame.
pub async fn read_frame<R: AsyncRead + Unpin>(input: &mut R) -> std::io::Result<Frame> {
    let mut len = [0u8; 4];
    match input.read_exact(&mut len).await {
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(Frame::Closed),
        Err(e) => return Err(e),
    }
    let len = u64::from(u32::from_ne_bytes(len));
    if len > MAX_IN as u64 {
        let skipped = tokio::io::copy(&mut (&mut *input).take(len), &mut tokio::io::sink()).await?;
        if skipped < len {
            return Ok(Frame::Closed);
        }
        return Ok(Frame::TooLarge(len));
    }
    let mut body = vec![0u8; len as usize];
    match input.read_exact(&mut body).await {
        Ok(_) => Ok(Frame::Message(body)),
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Ok(Frame::Closed),
        Err(e) => Err(e),
    }
}

/// Writes one frame. The caller keeps messages under [`MAX_OUT`].
pub async fn write_frame<W: AsyncWrite + Unpin>(out: &mut W, body: &[u8]) -> std::io::Result<()> {
    let len = u32::try_from(body.len())
        .ok()
        .filter(|l| (*l as usize) <= MAX_OUT)
        .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::InvalidInput, "message too long"))?;
    out.write_all(&len.to_ne_bytes()).await?;
    out.write_all(body).await?;
    out.flush().await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn framed(body: &[u8]) -> Vec<u8> {
        let mut v = (body.len() as u32).to_ne_bytes().to_vec();
        v.extend_from_slice(body);
        v
    }

    #[tokio::test]
    async fn frames_are_read_in_order_and_oversized_ones_skipped() {
        let big = vec![b'x'; MAX_IN + 1];
        let mut bytes = framed(b"{\"a\":1}");
        bytes.extend(framed(&big));
        bytes.extend(framed(b"{}"));
        bytes.extend([1, 0]); // a truncated length: the port closed
        let mut input = bytes.as_slice();
        assert_eq!(
            read_frame(&mut input).await.unwrap(),
            Frame::Message(b"{\"a\":1}".to_vec())
        );
        assert_eq!(
            read_frame(&mut input).await.unwrap(),
            Frame::TooLarge(big.len() as u64)
        );
        assert_eq!(
            read_frame(&mut input).await.unwrap(),
            Frame::Message(b"{}".to_vec())
        );
        assert_eq!(read_frame(&mut input).await.unwrap(), Frame::Closed);
    }

    #[tokio::test]
    async fn written_frames_read_back() {
        let mut out = Vec::new();
        write_frame(&mut out, b"[1,2]").await.unwrap();
        assert_eq!(out, framed(b"[1,2]"));
        let huge = vec![b' '; MAX_OUT + 1];
        assert!(write_frame(&mut Vec::new(), &huge).await.is_err());
    }
}
