//! image_pipeline: a camera publishes 640×480 RGB frames that a detector reads without a
//! single copy.
//!
//! ```sh
//! cargo run -p nerve-examples --bin image_pipeline
//! ```
//!
//! The camera *loans* a chunk of shared memory from the topic, writes the frame into it, and
//! sends a 16-byte descriptor: publishing costs the same for 16 bytes and 6 MB. The detector
//! receives a `Sample` that points into the same memory and pins it until dropped.
use std::time::Duration;

use nerve::msgs::{Encoding, Header, Image, ImageHeader};
use nerve::prelude::*;

const FRAMES: u64 = 30;
const W: u32 = 640;
const H: u32 = 480;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let topic = Topic::<Image>::builder("camera/image")
        .depth(4)
        .reliable()
        .open()?;
    // Subscribe first: a subscriber receives what is published from then on.
    let mut detector = topic.subscriber()?;
    let camera = topic.publisher()?;

    let camera_thread = std::thread::spawn(move || -> Result<(), nerve::SendError<()>> {
        for seq in 0..FRAMES {
            let mut frame = camera.loan((W * H * 3) as usize)?;
            // A driver would DMA or decode straight into `data_mut()`: shared memory.
            let shade = (seq * 8) as u8;
            frame.data_mut().fill(shade);
            let header = Header::new(nerve::time::now_ns(), seq, "camera").expect("short frame id");
            *frame.header_mut() = ImageHeader::new(header, W, H, Encoding::Rgb8);
            frame.send()?; // O(1) in the frame size
            std::thread::sleep(Duration::from_millis(5));
        }
        Ok(())
    });

    for seq in 0..FRAMES {
        let sample = detector.recv_deadline(Duration::from_secs(10))?;
        let header = sample.header();
        assert_eq!(
            (header.width, header.height, header.header.seq),
            (W, H, seq)
        );
        // Read in place: every byte is the frame's shade.
        let pixels = sample.data();
        let shade = (seq * 8) as u8;
        assert!(pixels.iter().all(|&p| p == shade), "frame {seq} corrupted");
        // `sample` drops here and its chunk goes back to the pool.
    }
    camera_thread.join().expect("camera thread")?;
    let (in_use, chunks) = topic.chunks_in_use().expect("a chunked topic has a pool");
    println!(
        "detector checked {FRAMES} frames of {W}x{H} rgb8 in place; chunks in use {in_use}/{chunks} \
         (the ring still holds the last {} frames for late subscribers)",
        topic.depth()
    );
    println!("ok: {FRAMES} frames received zero-copy and checked");
    Ok(())
}
