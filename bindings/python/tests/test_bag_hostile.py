"""Hostile recordings from Python: a file whose records claim more than it holds made
``nerve.bag.Reader`` abort the interpreter (``memory allocation of 4294963217 bytes failed``,
no exception) or take 1.5 GB. Each is now a ``ValueError`` naming the file and the byte, raised
at once. The reader runs in a child interpreter, so a regression fails this test instead of
killing pytest."""

import struct
import subprocess
import sys
from pathlib import Path

import nerve
import pytest

MAGIC = b"\x89MCAP0\r\n"


def record(opcode: int, claims: int, content: bytes) -> bytes:
    return struct.pack("<BQ", opcode, claims) + content


def string(s: str) -> bytes:
    return struct.pack("<I", len(s)) + s.encode()


def mcap(*records: bytes) -> bytes:
    return MAGIC + b"".join(records) + MAGIC


HEADER_CONTENT = string("") + string("")
HEADER = record(0x01, len(HEADER_CONTENT), HEADER_CONTENT)
CHANNEL = struct.pack("<HH", 1, 0) + string("cmd") + string("nerve") + struct.pack("<I", 0)
MESSAGE = struct.pack("<HIQQ", 1, 0, 1, 1) + bytes([7]) * 53
RECORDS = record(0x04, len(CHANNEL), CHANNEL) + record(0x05, len(MESSAGE), MESSAGE)
# A chunk's header: start and end time, uncompressed size, CRC, compression, compressed size.
CHUNK = struct.pack("<QQQI", 1, 1, len(RECORDS), 0) + string("") + struct.pack(
    "<Q", len(RECORDS)) + RECORDS
SCHEMA = struct.pack("<H", 1) + string("CmdVel") + string("json") + struct.pack("<I", 0)

# (name, bytes, what the error says after the file's name): the three files of the report.
CASES = [
    ("header", mcap(record(0x01, (4 << 30) - 4096, HEADER_CONTENT)),
     "at byte 8: a header record claims 4294963200 bytes, but only 16 remain in the file"),
    ("chunk", mcap(HEADER, record(0x06, (4 << 30) - 64, CHUNK)),
     "at byte 25: a chunk record claims 4294967232 bytes, but only 165 remain in the file"),
    ("schema", mcap(HEADER, record(0x03, 3 << 29, SCHEMA)),
     "at byte 25: a schema record claims 1610612736 bytes, but only 32 remain in the file"),
]

CHILD = """
import sys, nerve.bag
try:
    nerve.bag.Reader(sys.argv[1])
except ValueError as e:
    print(e)
    sys.exit(3)
print("read without an error")
"""


@pytest.mark.parametrize("name,data,says", CASES, ids=[c[0] for c in CASES])
def test_a_record_longer_than_its_file_is_a_value_error(tmp_path: Path, name: str, data: bytes,
                                                        says: str):
    assert len(data) == {"header": 33, "chunk": 199, "schema": 66}[name]
    path = tmp_path / f"{name}.mcap"
    path.write_bytes(data)
    child = subprocess.run([sys.executable, "-c", CHILD, str(path)], capture_output=True,
                           text=True, timeout=60)
    assert child.returncode == 3, f"status {child.returncode}: {child.stdout}{child.stderr}"
    assert child.stdout.strip() == f"{path}: {says}"
    # And in this interpreter, now that the child showed it survives.
    with pytest.raises(ValueError) as e:
        nerve.bag.Reader(path)
    assert str(e.value) == f"{path}: {says}"
