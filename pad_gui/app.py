"""``pad-studio``: start the app where the annotator stopped (the bundled sample the very
first time), or on a file; ``--screenshot`` renders and exits; ``--timings`` says how long
the start took (the first tree, the model's tree), as a first start on an empty Numba cache
is slow where a warm one is not."""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import ctypes.util
import os
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

from pad_engine.api import PadError, prepare_outputs, resource_path, write_bytes

STARTED = time.monotonic()  # the clock of --timings starts with this module
SCREENSHOT_TIMEOUT = 300.0  # seconds to wait for the model (a first start compiles it)
FIRST, MODEL = "first tree", "model's tree"  # moments of a start
# What Qt's xcb platform plugin needs from the system on Debian and Ubuntu (pip installs
# none of it); checked by loading the plugin under Xvfb on a bare Debian 12.
XCB_PACKAGES = ("libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-image0 "
                "libxcb-render-util0 libxcb-randr0 libxcb-shape0 libxcb-xfixes0 libxcb-sync1 "
                "libxcb-xkb1 libxcb-shm0 libxkbcommon-x11-0 libx11-xcb1 libegl1 libgl1 "
                "libfontconfig1 libdbus-1-3 libglib2.0-0")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="pad-studio",
        description="PAD Studio: see and correct the phrase-structure trees PAD proposes "
                    "for a dependency treebank.")
    parser.add_argument("file", nargs="?", help="CoNLL-X / CoNLL-U file (default: the file "
                        "open when the app was last closed; the first time, the bundled "
                        "sample treebank)")
    parser.add_argument("--model", help="model file (default: the bundled model that fits "
                        "the file)")
    parser.add_argument("--project", help="annotation project file (default: FILE.padproject "
                        "next to the treebank, or the one last used with it)")
    parser.add_argument("--sentence", type=int, metavar="N",
                        help="show sentence N (1-based) first (default: where you stopped)")
    parser.add_argument("--screenshot", metavar="OUT.png",
                        help="render the window with the sentence and its candidates, save "
                             "the picture and exit (works offscreen)")
    parser.add_argument("--size", metavar="WxH", type=_size,
                        help="window size for --screenshot (default: fit the screen)")
    parser.add_argument("--screenshot-at", choices=("model", "first"), default="model",
                        help="take the screenshot once the model's trees are shown (default) "
                             "or at the first tree (on a first start, the rule-based "
                             "projection's, while the decoder is prepared)")
    parser.add_argument("--timings", action="store_true",
                        help="say on standard error, in seconds from the start, when the "
                             "window, the first tree and the model's tree were shown")
    return parser.parse_args(argv)


def _size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not WIDTHxHEIGHT") from None
    return w, h


def _load(path: str) -> None:
    ctypes.CDLL(path)


def platform_problem() -> str | None:
    """Why Qt's xcb platform plugin would not load (Qt then aborts the process with a
    message that names the wrong library), or None. Only asked when xcb is the platform."""
    platform = os.environ.get("QT_QPA_PLATFORM")
    if sys.platform != "linux" or not os.environ.get("DISPLAY") or platform not in (None, "xcb") \
            or (platform is None and os.environ.get("WAYLAND_DISPLAY")):
        return None  # another platform, or Qt picks Wayland
    import PySide6

    plugin = Path(PySide6.__file__).parent / "Qt" / "plugins" / "platforms" / "libqxcb.so"
    if not plugin.exists():
        return None
    try:
        _load(str(plugin))
    except OSError as e:
        return str(e)
    if ctypes.util.find_library("xcb-cursor") is None:
        return "libxcb-cursor.so.0 is missing (Qt 6.5 and later need it for xcb)"
    return None


def xcb_advice(problem: str) -> str:
    return (f"pad-studio: Qt's xcb platform plugin cannot load: {problem}\n"
            "Install the system libraries it needs (Debian, Ubuntu):\n"
            f"    sudo apt-get install -y {XCB_PACKAGES}\n"
            "or draw without a display: pad-studio --screenshot OUT.png "
            "(QT_QPA_PLATFORM=offscreen)")


def open_window(args: argparse.Namespace):
    """The main window, shown, on the file and sentence to start with: those named, else
    where the annotator stopped, else (the very first start) the bundled sample."""
    from PySide6.QtCore import QSettings

    from pad_gui.window import MainWindow

    window = MainWindow(args.model, remember=not args.screenshot)
    if args.size:
        window.resize(*args.size)
    window.show()
    last = QSettings().value("last/file")
    path = Path(args.file or last or resource_path("sample", "sample.conllu"))
    sentence = args.sentence
    if sentence is None and last and Path(last).resolve() == path.resolve():
        sentence = int(QSettings().value("last/sentence", 0)) + 1
    window.open_path(path, args.project, start=(sentence or 1) - 1)  # text: when it is read
    return window


def watch_start(window, said: Callable[[str, float], None]) -> set[str]:
    """Call ``said(moment, seconds)`` when the first tree (:data:`FIRST`) and the first tree
    of the model (:data:`MODEL`) are drawn; returns the moments seen so far (kept up)."""
    seen: set[str] = set()

    def drawn(*_) -> None:
        s = window.session
        if s is None or window.current < 0 or not window.scene.nodes:
            return
        moments = [FIRST]
        decoded = s.decoded(window.current)
        if window.engine_ready and isinstance(decoded, list) and (
                window.models.current_model() is None or decoded[0].how != "rules"):
            moments.append(MODEL)  # no model fits: the projection is the model's tree
        for moment in moments:
            if moment not in seen:
                seen.add(moment)
                said(moment, time.monotonic() - STARTED)

    window.workspace.redraw.connect(drawn)
    return seen


def _probe_cache(imported: threading.Event) -> None:
    """On a thread while Qt loads: import the engine (Numba with it), then ask whether this
    is a first start (a trivial kernel compiled or loaded), which the engine thread needs
    first. ``imported`` is set once the imports are done, failed or not: the window waits
    for it, since two threads importing Numba at once (a package with circular imports)
    can each meet the other's half-made modules."""
    try:
        from pad_gui.controllers.engine import first_start
    except Exception:  # noqa: BLE001 - the window imports it again and says why
        return
    finally:
        imported.set()
    with contextlib.suppress(Exception):  # the engine thread tries again and says why
        first_start()


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.screenshot:
        try:  # before the window: a FIFO, a device or a 0444 file is refused at once
            prepare_outputs([args.screenshot], [args.file, args.project, args.model])
        except PadError as e:
            print(f"pad-studio: {e}", file=sys.stderr)
            return 1
    if args.screenshot and "QT_QPA_PLATFORM" not in os.environ:
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    problem = platform_problem()
    if problem is not None:
        print(xcb_advice(problem), file=sys.stderr)
        return 1
    imported = threading.Event()
    threading.Thread(target=_probe_cache, args=(imported,), name="pad-probe",
                     daemon=True).start()
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    if app is None:
        app = QApplication(sys.argv[:1])
        app.setOrganizationName("PAD Studio")
        app.setApplicationName("PAD Studio")
    imported.wait()
    window = open_window(args)
    say = (lambda moment, seconds: print(f"pad-studio: {moment} {seconds:.2f} s",
                                         file=sys.stderr, flush=True)) if args.timings \
        else (lambda moment, seconds: None)
    say("window", time.monotonic() - STARTED)
    seen = watch_start(window, say)
    if not args.screenshot:
        return app.exec()
    wanted = FIRST if args.screenshot_at == "first" else MODEL
    deadline = time.monotonic() + SCREENSHOT_TIMEOUT
    while time.monotonic() < deadline and not (
            wanted in seen or (window.engine_ready and window.workspace.model_problem)):
        app.processEvents()
        time.sleep(0.02)
    app.processEvents()
    png = _png(window)
    window.close()
    try:
        write_bytes(args.screenshot, png)
    except (PadError, OSError) as e:
        print(f"pad-studio: cannot write {args.screenshot}: {e}", file=sys.stderr)
        return 1
    return 0


def _png(window) -> bytes:
    """The window as PNG bytes (written through the engine's writer, like every file)."""
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice

    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.WriteOnly)
    window.grab().save(buffer, "PNG")
    buffer.close()
    return bytes(data)


if __name__ == "__main__":
    sys.exit(main())
