"""The message classes' typed stubs are generated from the Rust schemas, current, and catch a
misspelled field in a type check."""

import subprocess
import sys
import textwrap
from pathlib import Path

import nerve
import pytest

HERE = Path(__file__).resolve().parents[1]


def _mypy(tmp_path: Path, code: str) -> subprocess.CompletedProcess[str]:
    pytest.importorskip("mypy", reason="mypy is installed by bindings/python/dev.sh")
    src = tmp_path / "user_code.py"
    src.write_text(textwrap.dedent(code))
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-error-summary",
         "--cache-dir", str(HERE / ".mypy_cache"), str(src)],
        capture_output=True, text=True, cwd=tmp_path,
    )


def test_the_committed_stubs_are_current() -> None:
    r = subprocess.run([sys.executable, str(HERE / "gen_stubs.py"), "--check"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_every_message_class_is_in_the_stubs() -> None:
    stubs = (HERE / "python" / "nerve" / "msgs.pyi").read_text()
    for name in [*nerve.msgs.STRUCTS, *nerve.msgs.CHUNKED]:
        assert f"\nclass {name}(" in stubs, name
        assert name in nerve.__all__, name


def test_correct_code_type_checks(tmp_path: Path) -> None:
    r = _mypy(tmp_path, """
        import nerve

        imu = nerve.Imu(header=nerve.Header(stamp_ns=1, frame_id="imu"))
        imu.orientation_covariance = [0.0] * 9
        x: float = imu.angular_velocity.x
        frame: str = imu.header.frame_id
        scan_header: nerve.LaserScanHeader = nerve.LaserScanHeader(range_max=30.0)
        print(x, frame, scan_header)
    """)
    assert r.returncode == 0, r.stdout + r.stderr


def test_a_misspelled_field_fails_the_type_check(tmp_path: Path) -> None:
    r = _mypy(tmp_path, """
        import nerve

        imu = nerve.Imu(hedaer=nerve.Header())
        cmd = nerve.CmdVel()
        cmd.linaer = 0.5
        name: int = nerve.Header().frame_id
    """)
    assert r.returncode != 0
    out = r.stdout
    assert 'Unexpected keyword argument "hedaer" for "Imu"' in out, out
    assert '"CmdVel" has no attribute "linaer"' in out, out
    assert 'Incompatible types in assignment (expression has type "str"' in out, out


def test_a_type_declared_in_python_type_checks_its_fields(tmp_path: Path) -> None:
    r = _mypy(tmp_path, """
        import nerve

        @nerve.message("demo/Wheel")
        class Wheel:
            stamp_ns: nerve.u64
            speed: nerve.f64 = 0.5

        ok = Wheel(stamp_ns=1, speed=2.0)
        bad = Wheel(sped=1.0)
        x: str = ok.speed
    """)
    out = r.stdout
    assert 'Unexpected keyword argument "sped" for "Wheel"' in out, out
    assert 'Incompatible types in assignment (expression has type "float"' in out, out
    assert out.count("error:") == 2, out
