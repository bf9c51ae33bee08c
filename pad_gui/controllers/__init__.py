"""The app's state and behaviour, free of Qt: what the window shows is decided here and
tests drive it without a window. Views subscribe to the controllers' events
(``pad_gui.events``) and call their methods; tests/test_architecture.py keeps Qt out."""
