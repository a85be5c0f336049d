"""`python -m config.launcher`, what `./parley run` executes."""

import sys

from config.launcher import main

sys.exit(main())
