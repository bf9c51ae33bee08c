"""``pad-studio``: start the app, optionally on a file; ``--screenshot`` renders and exits."""

from __future__ import annotations

import argparse
import os
import sys
import time

from pad_resources import resource_path

SCREENSHOT_TIMEOUT = 60.0  # seconds to wait for the model and the sentence's candidates


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="pad-studio",
        description="PAD Studio: see and correct the phrase-structure trees PAD proposes "
                    "for a dependency treebank.")
    parser.add_argument("file", nargs="?", help="CoNLL-X / CoNLL-U file (default: the "
                        "bundled sample treebank)")
    parser.add_argument("--model", help="model file (default: the bundled English model)")
    parser.add_argument("--project", help="annotation project file (default: FILE.padproject "
                        "next to the treebank, or the one last used with it)")
    parser.add_argument("--sentence", type=int, default=1, metavar="N",
                        help="show sentence N (1-based) first")
    parser.add_argument("--screenshot", metavar="OUT.png",
                        help="render the window with the sentence and its candidates, save "
                             "the picture and exit (works offscreen)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.screenshot and "QT_QPA_PLATFORM" not in os.environ:
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    from PySide6.QtWidgets import QApplication

    from pad_gui.window import MainWindow

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setOrganizationName("PAD Studio")
    app.setApplicationName("PAD Studio")
    window = MainWindow(args.model)
    window.resize(1920, 1080)
    window.show()
    path = args.file or resource_path("sample", "sample.conllu")
    if window.open_path(path, args.project) and window.session and len(window.session):
        window.go_to(max(0, min(args.sentence - 1, len(window.session) - 1)))
    if not args.screenshot:
        return app.exec()
    deadline = time.monotonic() + SCREENSHOT_TIMEOUT
    while time.monotonic() < deadline and not (
            window.decoded_current() or (window.engine_ready and window.model_problem)):
        app.processEvents()
        time.sleep(0.02)
    app.processEvents()
    ok = window.grab().save(args.screenshot)
    window.close()
    if not ok:
        print(f"pad-studio: cannot write {args.screenshot}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
