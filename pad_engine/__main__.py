from pad_engine.cli import run

run()
