//! The tiny PNG returned by the `generate_image` tool: a diagonal gradient in one colour, so a
//! client that renders it shows something recognisable and a test can check the pixels.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Smallest and largest edge, in pixels.
pub const MIN_SIZE: u32 = 1;
/// Kept small: the image travels base64-encoded inside a JSON-RPC message.
pub const MAX_SIZE: u32 = 64;

/// The colours the tool offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Color {
    Red,
    Green,
    #[default]
    Blue,
    Orange,
    Purple,
    Gray,
}

impl Color {
    /// sRGB value at full brightness.
    pub fn rgb(self) -> [u8; 3] {
        match self {
            Color::Red => [0xE5, 0x39, 0x35],
            Color::Green => [0x43, 0xA0, 0x47],
            Color::Blue => [0x1E, 0x88, 0xE5],
            Color::Orange => [0xFB, 0x8C, 0x00],
            Color::Purple => [0x8E, 0x24, 0xAA],
            Color::Gray => [0x75, 0x75, 0x75],
        }
    }

    /// Lower-case name, as in the schema.
    pub fn name(self) -> &'static str {
        match self {
            Color::Red => "red",
            Color::Green => "green",
            Color::Blue => "blue",
            Color::Orange => "orange",
            Color::Purple => "purple",
            Color::Gray => "gray",
        }
    }
}

/// Why an image could not be made.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ImageError {
    /// Edge outside [`MIN_SIZE`]..=[`MAX_SIZE`].
    #[error("size {0} is out of range: use {MIN_SIZE} to {MAX_SIZE} pixels")]
    Size(u32),
    /// The encoder failed (never expected for in-memory output).
    #[error("PNG encoding failed: {0}")]
    Encode(#[from] png::EncodingError),
}

/// The pixel at `(x, y)`: full colour in the top-left corner fading to a quarter in the
/// bottom-right, so the gradient is visible at any size.
pub fn pixel(color: Color, size: u32, x: u32, y: u32) -> [u8; 3] {
    let span = 2 * (size.max(2) - 1);
    let shade = |channel: u8| {
        let full = u32::from(channel);
        let dim = full - full * 3 * (x + y) / (4 * span);
        u8::try_from(dim).unwrap_or(u8::MAX)
    };
    color.rgb().map(shade)
}

/// A `size`×`size` 8-bit RGB PNG of [`pixel`].
pub fn gradient_png(color: Color, size: u32) -> Result<Vec<u8>, ImageError> {
    if !(MIN_SIZE..=MAX_SIZE).contains(&size) {
        return Err(ImageError::Size(size));
    }
    let mut data = Vec::with_capacity((size * size * 3) as usize);
    for y in 0..size {
        for x in 0..size {
            data.extend_from_slice(&pixel(color, size, x, y));
        }
    }
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, size, size);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header()?;
    writer.write_image_data(&data)?;
    writer.finish()?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_a_decodable_png_with_the_expected_pixels() {
        for (color, size) in [(Color::Blue, 16), (Color::Red, 1), (Color::Gray, MAX_SIZE)] {
            let bytes = gradient_png(color, size).expect("in range");
            let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
            let mut reader = decoder.read_info().expect("valid PNG header");
            let mut buf = vec![0; reader.output_buffer_size().expect("small image")];
            let frame = reader.next_frame(&mut buf).expect("valid PNG data");
            assert_eq!((frame.width, frame.height), (size, size));
            assert_eq!(frame.color_type, png::ColorType::Rgb);
            assert_eq!(&buf[..3], &color.rgb(), "top-left is the full colour");
            let last = (size * size * 3) as usize;
            assert_eq!(
                &buf[last - 3..last],
                &pixel(color, size, size - 1, size - 1)
            );
        }
    }

    #[test]
    fn rejects_sizes_out_of_range() {
        for size in [0, MAX_SIZE + 1] {
            assert!(
                matches!(gradient_png(Color::Red, size), Err(ImageError::Size(s)) if s == size)
            );
        }
    }
}
