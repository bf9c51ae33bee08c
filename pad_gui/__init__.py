"""PAD Studio desktop app (PySide6). No algorithm here: every conversion calls pad_engine."""
