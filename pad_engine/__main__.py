import sys

from pad_engine.cli import main

sys.exit(main())
