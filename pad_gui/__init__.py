"""PAD Studio desktop application (PySide6). Holds no algorithm: every conversion calls pad_engine."""
