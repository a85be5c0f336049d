"""`python -m config.launcher`, what `./parley run` executes."""

import sys

from config.launcher import main

if __name__ == "__main__":  # not when a test imports every module
    sys.exit(main())
