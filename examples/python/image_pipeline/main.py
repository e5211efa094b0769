"""Image pipeline: camera frames shared in place, never copied.

Large messages (images, point clouds, laser scans) do not travel through a topic's ring: the
publisher *loans* a chunk of the topic's shared memory, fills it in place (here numpy writes
straight into it), and sends it; only a small descriptor goes through the ring. Subscribers
receive numpy arrays viewing that same chunk, read-only. Sending costs the same for a 900 KB
frame as for a 9-byte one.

Three stages in one process (each could be its own process, unchanged): a camera publishes
640x480 rgb8 frames, a converter turns each into a mono8 frame written into its own loan, and
a viewer checks every pixel. Run it with:

    python examples/python/image_pipeline/main.py
"""

import sys
import time

import nerve
import numpy as np

WIDTH, HEIGHT, FRAMES = 640, 480, 10


def check(ok: bool, what: str) -> None:
    """Stops the example with a non-zero exit code when `ok` is false."""
    if not ok:
        sys.exit(f"FAILED: {what}")


def address(a: np.ndarray) -> int:
    """Where an array's pixels start in memory."""
    return int(a.__array_interface__["data"][0])


def camera_picture(frame: int) -> np.ndarray:
    """The picture the camera takes: a colour gradient that moves with the frame number."""
    y, x = np.mgrid[0:HEIGHT, 0:WIDTH]
    return np.stack([(x + frame) % 256, (y + frame) % 256, (x + y) % 256], axis=-1).astype(np.uint8)


def to_gray(rgb: np.ndarray, out: np.ndarray) -> None:
    """Writes the grey level of every pixel of `rgb` (the mean of its channels) into `out`."""
    np.floor_divide(rgb.sum(axis=2, dtype=np.uint16), 3, out=out, casting="unsafe")


def main() -> None:
    # A chunked topic: each message is one chunk of its pool. `chunks` is the pool's size; a
    # chunk is free again once the ring moved past it and no subscriber holds it.
    camera = nerve.Topic("examples/image_pipeline/camera", nerve.Image, depth=4, chunks=8)
    gray = nerve.Topic("examples/image_pipeline/gray", nerve.Image, depth=4, chunks=8)
    camera_in = camera.subscriber()
    gray_in = gray.subscriber()
    camera_out = camera.publisher()
    gray_out = gray.publisher()

    for frame in range(FRAMES):
        # Camera: loan a chunk for one frame. `loan.data` is a (480, 640, 3) uint8 array over
        # the chunk; the header (size, encoding, stamp, frame id) is already written.
        picture = camera_picture(frame)
        stamp = time.monotonic_ns()
        loan = camera_out.loan_image(WIDTH, HEIGHT, "rgb8", stamp_ns=stamp, frame_id="camera")
        loan.data[:] = picture  # numpy writes straight into shared memory
        written_at = address(loan.data)
        loan.send()  # O(1): only the chunk's descriptor enters the ring

        # Converter: the received image views the very bytes the camera wrote.
        # recv_deadline waits like recv, but raises nerve.Timeout (naming the topic) instead
        # of returning None.
        img = camera_in.recv_deadline(5.0)
        check(address(img.data) == written_at, "the camera image was copied on its way")
        check(not img.data.flags.writeable, "a received image must be read-only")
        check(np.array_equal(img.data, picture), f"frame {frame}: camera pixels differ")
        check((img.width, img.height, img.encoding) == (WIDTH, HEIGHT, "rgb8"), "wrong size")
        check(img.header.header.stamp_ns == stamp, "the header's stamp changed")
        check(img.header.header.frame_id == "camera", "the header's frame id changed")
        # A `with` block sends the loan when it ends (and returns it unsent on an exception).
        with gray_out.loan_image(WIDTH, HEIGHT, "mono8", stamp_ns=stamp) as out:
            to_gray(img.data, out.data)  # (480, 640) uint8, computed into the loan
        del img  # lets the camera chunk go back to its pool

        # Viewer: checks every pixel against the picture the camera took.
        result = gray_in.recv_deadline(5.0)
        expected = np.empty((HEIGHT, WIDTH), np.uint8)
        to_gray(picture, expected)
        check(result.data.shape == (HEIGHT, WIDTH), f"gray shape {result.data.shape}")
        check(np.array_equal(result.data, expected), f"frame {frame}: gray pixels differ")

    lost = camera_in.stats().lost + gray_in.stats().lost
    check(lost == 0, f"{lost} frames lost")
    print(f"{FRAMES} frames: camera -> gray converter -> viewer, {lost} lost")
    print(
        f"ok: {FRAMES} {WIDTH}x{HEIGHT} rgb8 frames filled in place, received without a copy "
        "and converted to gray, every pixel checked"
    )


if __name__ == "__main__":
    main()
